import Backbeat
import BackbeatCapture
import BackbeatReplay
import Foundation
import Testing

@Suite("Engine capture: opening, end and the replay engine")
struct EngineCaptureTests {
    @Test func aCaptureOpensWithTheEngineAndEndsWhereItStopped() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("engine-\(UUID().uuidString).bbcap")
        defer { try? FileManager.default.removeItem(at: url) }
        let engine = try AudioEngine(output: .offline(sampleRate: 44_100, channels: 2))
        defer { engine.shutdown() }
        _ = try engine.render(frames: 100)
        let capture = try engine.startCapture(to: url)
        #expect(capture.isCapturing)
        #expect(throws: BackbeatError.self) { _ = try engine.startCapture(to: url) }
        _ = try engine.render(frames: 4_410)
        try capture.stop()
        #expect(!capture.isCapturing)

        let records = try CaptureFileReader(url: url).readAll()
        // The render of 4,410 frames ends between two update steps: the replay must split there too.
        #expect(records.map(\.kind) == [.open, .renderSplit, .end])
        var decoder = records[0].decoder
        let opening = try CaptureOpening(from: &decoder)
        #expect(opening.outputKind == .offline)
        #expect(opening.sampleRate == 44_100)
        #expect(opening.startFrame == 100)
        #expect(records[2].frame == 4_510)

        let replayer = try Replayer(url: url)
        let result = try replayer.run(writingTo: nil)
        #expect(result.framesRendered == 4_410)
        #expect(result.ended)
        #expect(result.damage == nil)
    }
}
