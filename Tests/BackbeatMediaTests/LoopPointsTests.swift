import Backbeat
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatMedia
@testable import BackbeatMusic

/// Loop points: the tags, their bounds, and a streamed song's intro, loop and tail, to the sample.
@Suite("LoopPoints")
struct LoopPointsTests {
    static func comments(_ pairs: [String]) -> [[UInt8]] { pairs.map { Array($0.utf8) } }

    @Test("LOOPSTART with LOOPLENGTH or LOOPEND, in frames; bad values are ignored by the documented rule")
    func tagRules() throws {
        func loop(_ pairs: String...) -> LoopPoints? { VorbisComments.read(Self.comments(pairs)).tags.loopPoints }
        #expect(loop("LOOPSTART=1000", "LOOPLENGTH=500") == (try LoopPoints(start: 1000, end: 1500)))
        #expect(loop("loopstart= 1000 ", "LoopEnd=4000") == (try LoopPoints(start: 1000, end: 4000)))
        #expect(loop("LOOPSTART=0", "LOOPLENGTH=10", "LOOPEND=99") == (try LoopPoints(start: 0, end: 10)))
        #expect(loop("LOOPSTART=7", "LOOPSTART=9", "LOOPLENGTH=3") == (try LoopPoints(start: 7, end: 10)))
        #expect(loop("LOOPSTART=1000") == nil, "no length or end")
        #expect(loop("LOOPLENGTH=1000") == nil, "no start")
        #expect(loop("LOOPSTART=-5", "LOOPLENGTH=100") == nil, "negative")
        #expect(loop("LOOPSTART=5", "LOOPLENGTH=-100") == nil, "negative length")
        #expect(loop("LOOPSTART=5", "LOOPLENGTH=0") == nil, "empty")
        #expect(loop("LOOPSTART=500", "LOOPEND=500") == nil, "end not after start")
        #expect(loop("LOOPSTART=500", "LOOPEND=20") == nil)
        #expect(loop("LOOPSTART=99999999999999999999", "LOOPLENGTH=1") == nil, "overflowing")
        #expect(loop("LOOPSTART=999999999999999", "LOOPLENGTH=999999999999999") != nil, "15 digits still add up")
        #expect(loop("LOOPSTART=1e3", "LOOPLENGTH=10") == nil, "not a whole number")
        #expect(loop("LOOPSTART=10", "LOOPLENGTH=x", "LOOPEND=30") == (try LoopPoints(start: 10, end: 30)))
    }

    @Test("The API refuses regions that are negative, empty or overflowing, with a typed error")
    func apiBounds() throws {
        #expect(throws: BackbeatError.self) { try LoopPoints(start: -1, end: 10) }
        #expect(throws: BackbeatError.self) { try LoopPoints(start: 10, end: 10) }
        #expect(throws: BackbeatError.self) { try LoopPoints(start: 10, length: 0) }
        #expect(throws: BackbeatError.self) { try LoopPoints(start: .max - 1, length: 10) }
        #expect { try LoopPoints(start: 1, end: 0) } throws: { BackbeatError.Code.invalidLoopPoints.matches($0) }
        let points = try LoopPoints(start: 100, end: 900)
        #expect(points.clamped(toFrameCount: 500) == (try LoopPoints(start: 100, end: 500)), "end moves to the end")
        #expect(points.clamped(toFrameCount: 100) == nil, "start at the end: no region")
    }

    @Test("Ogg Vorbis loop tags round-trip through the writer and the asset; an end past the file is fitted")
    func oggTags() async throws {
        try await withTemporaryDirectoryAsync { dir in
            let url = dir.appendingPathComponent("loop.ogg")
            var tags = AudioTags(title: "Level 1")
            tags.loopPoints = try LoopPoints(start: 11_025, length: 1_000_000)
            try await Media.write(Fixtures.music(seconds: 1), to: url, as: .oggVorbis, tags: tags)
            let asset = AudioAsset(url: url)
            #expect(try await asset.load(.tags).loopPoints == (try LoopPoints(start: 11_025, end: 1_011_025)))
            #expect(try await asset.load(.loopPoints) == (try LoopPoints(start: 11_025, end: 44_100)))
            let explicit = AudioAsset(url: url, loopPoints: try LoopPoints(start: 100, end: 200))
            #expect(try await explicit.load(.loopPoints) == (try LoopPoints(start: 100, end: 200)))
            let past = AudioAsset(url: url, loopPoints: try LoopPoints(start: 44_100, end: 50_000))
            await #expect(throws: BackbeatError.self) { try await past.load(.loopPoints) }
        }
    }

    @Test("backbeat info prints the loop points, in text and JSON")
    func infoShowsLoop() async throws {
        try await withTemporaryDirectoryAsync { dir in
            let url = dir.appendingPathComponent("loop.ogg")
            var tags = AudioTags()
            tags.loopPoints = try LoopPoints(start: 4_410, end: 30_000)
            try await Media.write(Fixtures.music(seconds: 1), to: url, as: .oggVorbis, tags: tags)
            let text = try BackbeatTool.run(["info", url.path])
            #expect(text.status == 0)
            #expect(text.stdout.contains("Loop:        frames 4410..<30000 (25590 frames;"))
            let json = try BackbeatTool.run(["info", "--json", url.path])
            let objects = try #require(
                try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            let loop = try #require(objects.first?["loop"] as? [String: Any])
            #expect(loop["start"] as? Int == 4_410 && loop["end"] as? Int == 30_000 && loop["length"] as? Int == 25_590)
            let plain = dir.appendingPathComponent("plain.ogg")
            try await Media.write(Fixtures.music(seconds: 0.2), to: plain, as: .oggVorbis)
            #expect(!(try BackbeatTool.run(["info", plain.path]).stdout.contains("Loop:")))
        }
    }

    /// A 480 Hz sine (100 frames a period at 48 kHz), so a loop of whole periods is continuous.
    static func sine(_ frames: Int) -> [Float] { Songs.sineFrames(0..<frames, frequency: 480) }

    @Test("Intro once, the loop three times, then the tail: the frame after the loop end is the loop start's")
    func streamedTimes() throws {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("song.wav")
            let file = Self.sine(48_000)
            try Songs.write(file, to: url)
            let points = try LoopPoints(start: 10_000, end: 30_000)
            let item = PlayerItem(asset: AudioAsset(url: url, loopPoints: points, looping: .times(3)))
            try withOfflineEngine { engine in
                let player = try QueuePlayer(engine: engine, items: [item])
                player.play()
                let out = try engine.render(frames: 48_000 * 3)
                let first = try #require(SampleAnalysis.firstAudibleFrame(out, channels: 2))
                let last = try #require(SampleAnalysis.lastAudibleFrame(out, channels: 2))
                #expect(last - first + 1 == 48_000 + 2 * 20_000, "intro + 3 loops + tail")
                // Where each output frame comes from in the file.
                var source: [Int] = Array(0..<30_000) + Array(10_000..<30_000) + Array(10_000..<48_000)
                #expect(source.count == 88_000)
                var worst: Float = 0
                for (i, f) in source.enumerated() {
                    worst = max(
                        worst, abs(out[(first + i) * 2] - file[f * 2]), abs(out[(first + i) * 2 + 1] - file[f * 2 + 1]))
                }
                #expect(worst < 1e-4, "every frame is the file's frame it should be")
                // The seam: the frame after the loop end equals the frame at the loop start.
                #expect(abs(out[(first + 30_000) * 2] - file[10_000 * 2]) < 1e-4)
                #expect(
                    abs(out[(first + 30_000) * 2] - file[30_000 * 2]) > 1e-3 || file[10_000 * 2] == file[30_000 * 2])
                let heard = Array(out[(first * 2)...(last * 2 + 1)])
                #expect(
                    SampleAnalysis.maxJump(heard, channels: 2) <= SampleAnalysis.maxJump(file, channels: 2) + 1e-4,
                    "no click")
                source.removeAll()
                #expect(item.status == .readyToPlay)
            }
        }
    }

    @Test("Ogg loop tags loop forever, streamed: the output matches the decoded file around every seam")
    func streamedForeverFromTags() async throws {
        try await withTemporaryDirectoryAsync { dir in
            let url = dir.appendingPathComponent("level.ogg")
            // The file as decoded, whole (the test's reference; the player never does this).
            let file = try await Fixtures.loopTaggedOgg(
                at: url, seconds: 1, loop: LoopPoints(start: 12_000, length: 24_000))
            try withOfflineEngine { engine in
                let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: url)])
                player.play()
                let out = try engine.render(frames: 48_000 * 4)
                let first = try #require(SampleAnalysis.firstAudibleFrame(out, channels: 2, threshold: 1e-6))
                #expect(first < 100)
                // Still playing at the end: the loop never ends.
                #expect(SampleAnalysis.lastAudibleFrame(out, channels: 2)! > 48_000 * 4 - 100)
                func expectMatch(outFrame: Int, fileFrame: Int, count: Int, _ what: String) {
                    var worst: Float = 0
                    for k in 0..<count * 2 {
                        worst = max(worst, abs(out[(first + outFrame) * 2 + k] - file[fileFrame * 2 + k]))
                    }
                    #expect(worst < 1e-4, "\(what): worst difference \(worst)")
                }
                expectMatch(outFrame: 0, fileFrame: 0, count: 36_000, "the intro and the first loop")
                for n in 1...6 {
                    expectMatch(
                        outFrame: 36_000 + (n - 1) * 24_000, fileFrame: 12_000, count: 24_000 - 1,
                        "loop \(n + 1) starts at the loop start")
                }
            }
        }
    }

    @Test("Loop points set through the API that start past the end fail the item with a typed error")
    func apiPastEnd() throws {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("short.wav")
            try Songs.write(Self.sine(4_800), to: url)
            let item = PlayerItem(asset: AudioAsset(url: url, loopPoints: try LoopPoints(start: 4_800, end: 9_600)))
            try withOfflineEngine { engine in
                let player = try QueuePlayer(engine: engine, items: [item])
                player.play()
                let out = try engine.render(frames: 9_600)
                #expect(SampleAnalysis.firstAudibleFrame(out, channels: 2) == nil)
                #expect(item.error?.code == .invalidLoopPoints)
            }
        }
    }

    @Test("A 44.1 kHz song loops through the 48 kHz resampler with no step beyond the signal's own")
    func resampledSeam() throws {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("song44.wav")
            // 441 Hz at 44.1 kHz: 100 frames a period; the loop is 44 whole periods.
            let file = Songs.sineFrames(0..<44_100, frequency: 441, sampleRate: 44_100)
            try Songs.write(file, to: url, sampleRate: 44_100)
            let item = PlayerItem(asset: AudioAsset(url: url, loopPoints: try LoopPoints(start: 4_400, end: 8_800)))
            try withOfflineEngine { engine in
                let player = try QueuePlayer(engine: engine, items: [item])
                player.play()
                let out = try engine.render(frames: 48_000)
                let heard = Array(out[200..<out.count])
                let reference = Songs.sineFrames(0..<48_000, frequency: 441, sampleRate: 48_000)
                #expect(
                    SampleAnalysis.maxJump(heard, channels: 2) < SampleAnalysis.maxJump(reference, channels: 2) * 1.01)
                #expect(SampleAnalysis.lastAudibleFrame(out, channels: 2)! > 48_000 - 100, "still looping")
            }
        }
    }
}
