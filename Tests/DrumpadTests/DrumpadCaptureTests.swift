import Backbeat
import BackbeatReplay
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import DrumpadCore

/// Issue 32's first test: the drum pad's demo script rendered to a file
/// with a capture on, then the capture replayed offline, sample for sample.
@Suite struct DrumpadCaptureTests {
    /// The whole demo script (about 21 s of audio: the issue asks for this
    /// script, and it is what plays pads, songs, the session's events and
    /// the level's adaptive music together), rendered once and replayed once.
    @Test func demoScriptReplaysSampleForSample() throws {
        let lines = String(decoding: try Data(contentsOf: DrumpadDemoTests.script), as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try withTemporaryDirectory { dir in
            let wav = dir.appendingPathComponent("demo.wav")
            let capture = dir.appendingPathComponent("demo.bbcap")
            let engine = try AudioEngine(output: .file(url: wav))
            let session = try engine.startCapture(to: capture)
            let music = try ApplicationMusic(engine: engine, library: DrumpadDemoTests.library)
            let demo = try Drumpad(
                engine: engine, drums: Assets.drums, library: DrumpadDemoTests.library, music: music, say: { _ in })
            demo.run(lines)
            demo.finish()
            #expect(!session.isCapturing, "shutting the engine down ends the capture")
            let original = try SampleAnalysis.samples(contentsOf: wav)
            #expect(original.frameCount > 20 * original.sampleRate)

            let replayWAV = dir.appendingPathComponent("replay.wav")
            let result = try Replayer(url: capture).run(writingTo: replayWAV)
            #expect(result.ended && result.damage == nil)
            let replayed = try SampleAnalysis.samples(contentsOf: replayWAV)
            #expect(replayed.sampleRate == original.sampleRate && replayed.channels == original.channels)
            #expect(replayed.frameCount == original.frameCount)
            let first = zip(replayed.samples, original.samples).enumerated()
                .first { $0.element.0 != $0.element.1 }?.offset
            #expect(first == nil, "the replay differs from frame \((first ?? 0) / original.channels) on")
        }
    }

    /// A session with a level (``DrumpadGeometryTests/twoRooms``): a snare
    /// behind the wall, the door opened, the listener moved, the door
    /// closed. The replay has the simulation's results, not the level, and
    /// renders the same samples; the drum pad and the replay need nothing
    /// of their own for it.
    @Test func aSessionWithALevelReplaysSampleForSample() throws {
        try withTemporaryDirectory { dir in
            let obj = dir.appendingPathComponent("level.obj")
            try Data(DrumpadGeometryTests.twoRooms.utf8).write(to: obj)
            let lines = [
                "geometry \(obj.path)", "door door close", "listener -2 1 1", "place 1 2 1 1", "place 2 -3 1 -2",
                "1", "2", "wait 0.3", "door door open", "1", "wait 0.3", "listener -1 1 2", "2", "1", "wait 0.3",
                "door door close", "1", "wait 0.5", "quit",
            ]
            let wav = dir.appendingPathComponent("level.wav")
            let capture = dir.appendingPathComponent("level.bbcap")
            let engine = try AudioEngine(output: .file(url: wav))
            _ = try engine.startCapture(to: capture)
            let music = try ApplicationMusic(engine: engine, library: DrumpadDemoTests.library)
            let demo = try Drumpad(
                engine: engine, drums: Assets.drums, library: DrumpadDemoTests.library, music: music, say: { _ in })
            demo.run(lines)
            demo.finish()
            let original = try SampleAnalysis.samples(contentsOf: wav)
            #expect(original.samples.contains { abs($0) > 0.01 })

            let replayWAV = dir.appendingPathComponent("replay.wav")
            let result = try Replayer(url: capture).run(writingTo: replayWAV)
            #expect(result.ended && result.damage == nil)
            let replayed = try SampleAnalysis.samples(contentsOf: replayWAV)
            #expect(replayed.frameCount == original.frameCount)
            let first = zip(replayed.samples, original.samples).enumerated()
                .first { $0.element.0 != $0.element.1 }?.offset
            #expect(first == nil, "the replay differs from frame \((first ?? 0) / original.channels) on")
        }
    }
}
