import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// A sound file replaced while the game plays: voices on it finish on the
/// old buffer, the next play decodes the new file.
@Suite("SoundEffect reload")
struct SoundEffectReloadTests {
    static let rate = 48_000

    /// The bytes of a mono WAV of a sine at `hz`, `frames` long.
    static func wav(_ hz: Double, frames: Int, in dir: URL) throws -> Data {
        let staging = dir.appendingPathComponent("staging-\(Int(hz))-\(frames).wav")
        let tone = TestSignal.sine(frequency: hz, duration: MediaTime(frames: Int64(frames), sampleRate: rate))
        try Songs.write(tone.interleavedFloats, to: staging, channels: 1)
        return try Data(contentsOf: staging)
    }

    @Test(
        "A WAV replaced while a loop of it plays: the loop ends on the old buffer, the next play is new",
        arguments: SaveStyle.allCases)
    func replacedWhileLooping(_ style: SaveStyle) async throws {
        try await withTemporaryDirectory { dir in
            let sounds = dir.appendingPathComponent("sounds")
            try FileManager.default.createDirectory(at: sounds, withIntermediateDirectories: true)
            let url = sounds.appendingPathComponent("loop.wav")
            try Self.wav(400, frames: 4_800, in: dir).write(to: url)
            let engine = try AudioEngine(output: .offline(sampleRate: Self.rate, channels: 2))
            defer { engine.shutdown() }
            let sound = SoundEffect(contentsOf: url, engine: engine)
            #expect(!sound.reloadsWhenChanged)
            sound.reloadsWhenChanged = true
            try await sound.preload()
            let bytesBefore = engine.effectCacheUsedBytes
            #expect(bytesBefore == 4_800 * 4)

            let voice = sound.play(looping: .times(3))  // 3 × 4,800 frames of 400 Hz
            var out = try engine.render(frames: 2_400)
            try style.save(try Self.wav(1_000, frames: 2_400, in: dir), to: url)
            out += try engine.render(frames: 14_400)
            #expect(sound.duration == MediaTime(frames: 2_400, sampleRate: Self.rate), "the sound is the new file")
            #expect(voice.isFinished)
            let first = try #require(SampleAnalysis.firstAudibleFrame(out, channels: 2))
            let end = try #require(SampleAnalysis.lastAudibleFrame(out, channels: 2))
            #expect(abs(end + 1 - first - 14_400) <= 2, "the loop played 3 × the old 4,800 frames: \(first)...\(end)")
            let left = SampleAnalysis.channel(out, 0, of: 2)
            for start in stride(from: first, to: first + 14_400, by: 4_800) {
                let pass = Array(left[(start + 200)..<(start + 4_600)])
                #expect(SampleAnalysis.level(of: pass, atFrequency: 400, sampleRate: Self.rate) > 0.1)
                #expect(SampleAnalysis.level(of: pass, atFrequency: 1_000, sampleRate: Self.rate) < 0.01)
            }
            #expect(engine.effectCacheUsedBytes == 2_400 * 4, "the old buffer went with its last voice")

            sound.play()
            let next = try engine.render(frames: 4_800)
            let nextFirst = try #require(SampleAnalysis.firstAudibleFrame(next, channels: 2))
            let nextEnd = try #require(SampleAnalysis.lastAudibleFrame(next, channels: 2))
            #expect(
                abs(nextEnd + 1 - nextFirst - 2_400) <= 2, "the new file is 2,400 frames: \(nextFirst)...\(nextEnd)")
            let newLeft = Array(SampleAnalysis.channel(next, 0, of: 2)[(nextFirst + 200)..<(nextFirst + 2_200)])
            #expect(SampleAnalysis.level(of: newLeft, atFrequency: 1_000, sampleRate: Self.rate) > 0.1)
            #expect(SampleAnalysis.level(of: newLeft, atFrequency: 400, sampleRate: Self.rate) < 0.01)
        }
    }

    @Test("A file that stops decoding keeps the old sound")
    func brokenFileKeepsTheOldSound() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("hit.wav")
            try Self.wav(400, frames: 4_800, in: dir).write(to: url)
            let engine = try AudioEngine(output: .offline(sampleRate: Self.rate, channels: 2))
            defer { engine.shutdown() }
            let sound = SoundEffect(contentsOf: url, engine: engine)
            sound.reloadsWhenChanged = true
            try await sound.preload()
            try SaveStyle.rename.save(Data("RIFF but not a WAV at all".utf8), to: url)
            _ = try engine.render(frames: 480)
            #expect(sound.isLoaded && sound.duration == MediaTime(frames: 4_800, sampleRate: Self.rate))
            sound.play()
            let left = Array(SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2)[200..<4_600])
            #expect(SampleAnalysis.level(of: left, atFrequency: 400, sampleRate: Self.rate) > 0.1)
        }
    }

    @Test("A sound that does not follow its file plays the old one until asked to reload")
    func notFollowedUntilAsked() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("hit.wav")
            try Self.wav(400, frames: 4_800, in: dir).write(to: url)
            let engine = try AudioEngine(output: .offline(sampleRate: Self.rate, channels: 2))
            defer { engine.shutdown() }
            let sound = SoundEffect(contentsOf: url, engine: engine)
            try await sound.preload()
            try SaveStyle.rename.save(try Self.wav(1_000, frames: 2_400, in: dir), to: url)
            _ = try engine.render(frames: 480)
            #expect(sound.duration == MediaTime(frames: 4_800, sampleRate: Self.rate), "not followed: unchanged")
            let outcomes = try #require(engine.reloadChangedFiles())
            #expect(outcomes == [.reloaded("\(url.path): sound reloaded")])
            #expect(sound.duration == MediaTime(frames: 2_400, sampleRate: Self.rate))
            #expect(engine.reloadChangedFiles() == [], "nothing changed since")
        }
    }
}
