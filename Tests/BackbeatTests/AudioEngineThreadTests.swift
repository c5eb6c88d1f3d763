import Foundation
import Testing
import Backbeat
import BackbeatTesting

/// Engine calls work from any thread, whatever OpenAL context that thread
/// last had current: a game thread that never rendered, or one that last
/// drove another engine.
@Suite struct AudioEngineThreadTests {
    @Test("play() from a thread that never touched the engine is heard")
    func playFromAFreshThread() throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.5)), name: "s", engine: engine)
            let done = DispatchSemaphore(value: 0)
            let thread = Thread { sound.play(); done.signal() }
            thread.start()
            done.wait()
            #expect(SampleAnalysis.rms(try engine.render(frames: 4_800)) > 0.1)
        }
    }

    @Test("play() on one engine right after rendering another goes to the right engine")
    func playAfterRenderingAnotherEngine() throws {
        try withOfflineEngine { a in
            try withOfflineEngine { b in
                let sound = try SoundEffect(buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.5)), name: "s", engine: b)
                _ = try a.render(frames: 480)
                let voice = sound.play()
                #expect(SampleAnalysis.rms(try b.render(frames: 4_800)) > 0.1)
                #expect(SampleAnalysis.rms(try a.render(frames: 4_800)) == 0)
                _ = try a.render(frames: 480)
                #expect(voice.currentTime > .zero, "currentTime reads b's source, not a's")
                voice.stop()
                _ = try b.render(frames: 4_800)
                #expect(voice.isFinished)
            }
        }
    }
}
