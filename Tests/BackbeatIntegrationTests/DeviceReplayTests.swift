import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// A capture of a device session replays what the device played: the same
/// sounds at the same engine frames. It needs the private sound server, to
/// have a device to capture and its monitor to compare against; the scene
/// plays about three seconds.
@Suite struct DeviceReplayTests {
    /// A hit in interleaved stereo: where the left channel first goes over
    /// 0.05 (the sounds start at 0.2 or more within a few frames; the sink
    /// is silent between them), at least 0.2 s after the previous hit.
    static func onsets(_ samples: [Float]) -> [Int] {
        SampleAnalysis.hitFrames(samples, of: 2, threshold: 0.05, holdOff: 9_600)
    }

    /// The RMS of the left channel over `frames` frames from `start`, in dB.
    static func level(_ samples: [Float], from start: Int, frames: Int) -> Double {
        var sum = 0.0
        var count = 0
        for frame in start..<min(start + frames, samples.count / 2) {
            sum += Double(samples[2 * frame]) * Double(samples[2 * frame])
            count += 1
        }
        return 10 * log10(max(sum / Double(max(1, count)), 1e-20))
    }

    @Test(
        "soundServer: a device session's capture replays every hit within one update period of the sink's recording, within 1 dB"
    )
    func deviceSessionReplays() throws {
        let server = try PrivateSoundServer(sinks: ["Backbeat-Replay"])
        defer { server.stop() }
        try withTemporaryDirectory { dir in
            let recording = try server.recordMonitor(of: "Backbeat-Replay")
            let scene = try DeviceScene("replay", server: server, directory: dir)
            let line = scene.line("replay")
            let done = scene.line("done")
            let heard = try recording.stop()
            #expect(scene.finish() == 0, "\(scene.all)")
            try #require(line != nil && done != nil, "\(scene.all)")
            let update = try #require(DeviceScene.number("update", in: line).map(Int.init))

            let out = dir.appendingPathComponent("replay.wav")
            let result = try BackbeatTool.run([
                "replay", dir.appendingPathComponent("device.bbcap").path, "--output", out.path,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let replayed = try Media.read(out).floats

            let recordedOnsets = Self.onsets(heard)
            let replayedOnsets = Self.onsets(replayed)
            try #require(recordedOnsets.count == 8, "recorded onsets at \(recordedOnsets)")
            try #require(replayedOnsets.count == 8, "replayed onsets at \(replayedOnsets)")
            let bound = update * (underThreadSanitizer ? threadSanitizerTimingSlack : 1)
            let offsets = zip(replayedOnsets, recordedOnsets).map {
                ($0 - replayedOnsets[0]) - ($1 - recordedOnsets[0])
            }
            for offset in offsets { #expect(abs(offset) <= bound, "replayed − recorded (frames): \(offsets)") }
            for (replayedAt, recordedAt) in zip(replayedOnsets, recordedOnsets) {
                let a = Self.level(replayed, from: replayedAt, frames: 4_800)
                let b = Self.level(heard, from: recordedAt, frames: 4_800)
                #expect(abs(a - b) <= 1, "hit at \(recordedAt): replayed \(a) dB, recorded \(b) dB")
            }
        }
    }
}
