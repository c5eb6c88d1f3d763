import Backbeat
import BackbeatTesting
import Foundation
import Testing

/// The Testing article's suite and the README's test, run, so the figures
/// they assert are measured. Keep them in step with the text.
@Suite struct CoinPickupExampleTests {
    /// 0.2 s of 880 Hz (176 whole cycles), written as the game's asset would be.
    static func writeChime(in folder: URL) async throws -> URL {
        let url = folder.appendingPathComponent("coin.wav")
        try await TestingScratch.writeWAV(TestSignal.sine(frequency: 880, duration: MediaTime(seconds: 0.2)), to: url)
        return url
    }

    /// The scene: a coin taken on the right, 0.1 s in.
    static func takeCoin(on engine: AudioEngine, chime: URL) async throws {
        let coin = CoinPickup(engine: engine, chime: chime)
        try await coin.load()
        coin.take(atScreenX: 0.8, at: MediaTime(seconds: 0.1))
    }

    @Test func aCoinOnTheRightIsHeardOnTimeAtItsPitchOnTheRight() async throws {
        try await TestingScratch.withDirectory { folder in
            let chime = try await Self.writeChime(in: folder)
            let samples = try await withOfflineEngine { engine in
                try await Self.takeCoin(on: engine, chime: chime)
                return try engine.render(frames: 24_000)
            }
            #expect(SampleAnalysis.onsetFrames(samples, channels: 2) == [4_801])
            let left = SampleAnalysis.channel(samples, 0, of: 2)
            let right = SampleAnalysis.channel(samples, 1, of: 2)
            let sounding = Array(right[4_800..<14_400])
            let atPitch = SampleAnalysis.level(of: sounding, atFrequency: 880, sampleRate: 48_000)
            #expect(atPitch > 0.3, "level at 880 Hz: \(atPitch)")
            #expect(SampleAnalysis.level(of: sounding, atFrequency: 440, sampleRate: 48_000) < 0.01)
            let ratio = SampleAnalysis.rms(right) / SampleAnalysis.rms(left)
            #expect(ratio > 2, "right over left RMS: \(ratio)")
        }
    }

    @Test func theSceneRenderedToAFileReadsBackToTheSameSamples() async throws {
        try await TestingScratch.withDirectory { folder in
            let chime = try await Self.writeChime(in: folder)
            let inMemory = try await withOfflineEngine { engine in
                try await Self.takeCoin(on: engine, chime: chime)
                return try engine.render(frames: 24_000)
            }
            let wav = folder.appendingPathComponent("pickup.wav")
            let engine = try AudioEngine(output: .file(url: wav))
            try await Self.takeCoin(on: engine, chime: chime)
            try engine.advance(by: MediaTime(seconds: 0.5))
            engine.shutdown()
            let file = try SampleAnalysis.samples(contentsOf: wav)
            #expect(file.channels == 2 && file.sampleRate == 48_000)
            #expect(file.samples == inMemory)
            #expect(SampleAnalysis.onsetFrames(file.samples, channels: file.channels) == [4_801])
        }
    }

    @Test func theREADMEsCoinIsHeardOnTimeOnTheRight() async throws {
        try await withOfflineEngine { engine in
            let coin = try SoundEffect(
                buffer: TestSignal.sine(frequency: 880, duration: MediaTime(seconds: 0.2)), name: "coin", engine: engine
            )
            try await coin.preload()
            coin.play(at: MediaTime(seconds: 0.1), pan: 0.8)
            let samples = try engine.render(frames: 24_000)
            #expect(SampleAnalysis.onsetFrames(samples, channels: 2) == [4_801])
            let left = SampleAnalysis.channel(samples, 0, of: 2)
            let right = SampleAnalysis.channel(samples, 1, of: 2)
            #expect(SampleAnalysis.level(of: Array(right[4_800..<14_400]), atFrequency: 880, sampleRate: 48_000) > 0.3)
            #expect(SampleAnalysis.rms(right) > 2 * SampleAnalysis.rms(left))
        }
    }
}
