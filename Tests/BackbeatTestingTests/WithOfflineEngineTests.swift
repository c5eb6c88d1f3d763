import Backbeat
import BackbeatTesting
import Foundation
import Testing

/// `withOfflineEngine`, sync and async: the scope a game's audio test runs in.
@Suite struct WithOfflineEngineTests {
    @Test("The async scope awaits a preload, then renders the sound from its exact frame")
    func asyncScopePreloadsAndRenders() async throws {
        try await TestingScratch.withDirectory { dir in
            let url = dir.appendingPathComponent("coin.wav")
            try await TestingScratch.writeWAV(TestSignal.constant(0.5, frames: 4_800), to: url)
            let samples = try await withOfflineEngine { engine in
                let coin = SoundEffect(contentsOf: url, engine: engine)
                try await coin.preload()
                coin.play(at: MediaTime(frames: 2_400, sampleRate: 48_000))
                return try engine.render(frames: 9_600)
            }
            let left = SampleAnalysis.channel(samples, 0, of: 2)
            #expect(SampleAnalysis.firstAudibleFrame(samples, channels: 2) == 2_400)
            #expect(left[2_400..<7_200].allSatisfy { $0 > 0.1 })
            #expect(SampleAnalysis.lastAudibleFrame(samples, channels: 2) == 7_199)
        }
    }

    @Test("The async scope shuts its engine down when the body throws")
    func asyncScopeShutsDownOnThrow() async throws {
        struct Stop: Error {}
        var opened: AudioEngine?
        do {
            try await withOfflineEngine { engine in
                opened = engine
                try await Task.sleep(for: .milliseconds(1))
                throw Stop()
            }
            Issue.record("the body's error did not come out")
        } catch is Stop {}
        let engine = try #require(opened)
        #expect { _ = try engine.render(frames: 480) } throws: { ($0 as? BackbeatError)?.code == .engineShutDown }
    }

    @Test("A body without await takes the sync scope, in an async test too")
    func syncScopeInAsyncTest() async throws {
        let frames = try withOfflineEngine(channels: 1) { engine in try engine.render(frames: 480).count }
        #expect(frames == 480)
    }
}
