import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatMusic

@Suite("AudioStream")
struct AudioStreamTests {
    @Test("A starved stream counts and reports the underrun, and restarts by itself when data comes")
    func underrunIsCountedAndRestarts() throws {
        try withTemporaryDirectory { dir in
            let song = try Songs.constant(0.3, seconds: 2, in: dir, name: "song.wav")
            try withOfflineEngine { engine in
                let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: song)])
                let recorder = PlayerEventRecorder(player)
                // As on a real-time output whose decoder falls behind: no inline decoding, no background decoder.
                engine.withLock {
                    player.stream.decodesInline = false
                    player.stream.feed.holdsBackground = true
                }
                player.play()
                #expect(SampleAnalysis.peak(try engine.render(frames: 4_800)) == 0, "nothing decoded yet")
                #expect(player.underrunCount == 0, "not started is not an underrun")
                for _ in 0..<3 { player.stream.feed.decodeStep() }  // opened + two chunks (≈167 ms)
                let first = try engine.render(frames: 24_000)
                #expect(SampleAnalysis.peak(first) > 0.29)
                #expect(SampleAnalysis.peak(first.suffix(4_800)) == 0, "ran dry")
                player.stream.feed.decodeStep()
                let again = try engine.render(frames: 4_800)
                #expect(SampleAnalysis.peak(again) > 0.29, "restarted as soon as data was queued")
                #expect(player.underrunCount == 1)
                #expect(recorder.events.contains(.underrun(total: 1)))
                #expect(
                    player.currentPlaybackTime.seconds > 0.2 && player.currentPlaybackTime.seconds < 0.26,
                    "time counts only what played")
            }
        }
    }
}
