import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatMedia

/// Engine calls work from any thread, whatever OpenAL context that thread
/// last had current: a game thread that never rendered, or one that last
/// drove another engine.
@Suite struct AudioEngineThreadTests {
    @Test("play() from a thread that never touched the engine is heard")
    func playFromAFreshThread() throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.5)), name: "s", engine: engine)
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                sound.play()
                done.signal()
            }
            thread.start()
            done.wait()
            #expect(SampleAnalysis.rms(try engine.render(frames: 4_800)) > 0.1)
        }
    }

    @Test("play() on one engine right after rendering another goes to the right engine")
    func playAfterRenderingAnotherEngine() throws {
        try withOfflineEngine { a in
            try withOfflineEngine { b in
                let sound = try SoundEffect(
                    buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.5)), name: "s", engine: b)
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

    /// A paced file renders on the engine's own thread, which delivers the
    /// voice's completion: shutting down there must neither wait for that
    /// thread nor join it, and must still complete the file.
    @Test("shutdown() from a completion on a paced file's own thread returns and completes the file")
    func shutdownFromTheEngineThread() throws {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("paced.wav")
            let engine = try AudioEngine(output: .file(url: url, sampleRate: 48_000, pacing: .realTime))
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.05)),
                name: "blip", engine: engine)
            let finished = DispatchSemaphore(value: 0)
            sound.play { _ in
                engine.shutdown()
                finished.signal()
            }
            #expect(finished.wait(timeout: .now() + 30) == .success, "shutdown on the engine thread returned")
            #expect(!engine.isRunning)
            let written = try AudioAsset(url: url).details()
            #expect(written.frameCount >= 2_400, "the file holds the blip")
        }
    }

    /// An event handler on a paced file may call shutdown() too: it returns,
    /// and the file is complete.
    @Test("shutdown() from an event handler on a paced file returns and completes the file")
    func shutdownFromAnEventHandler() throws {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("handler.wav")
            let engine = try AudioEngine(output: .file(url: url, sampleRate: 48_000, pacing: .realTime))
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.05)),
                name: "blip", engine: engine)
            let finished = DispatchSemaphore(value: 0)
            engine.observe { event in
                guard case .voiceFinished = event else { return }
                engine.shutdown()
                finished.signal()
            }
            sound.play()
            #expect(finished.wait(timeout: .now() + 30) == .success, "shutdown from the handler returned")
            #expect(!engine.isRunning)
            let written = try AudioAsset(url: url).details()
            #expect(written.frameCount >= 2_400, "the file holds the blip")
            let samples = try Media.read(url, settings: AudioFormat(sampleRate: 48_000, channelCount: 2)).floats
            #expect(SampleAnalysis.peak(samples) > 0.2, "and its samples: the blip, panned to the centre")
        }
    }

    /// Whether a real-time engine's time reaches `seconds`. Wall time only
    /// bounds the wait (30 s); engine time is what is checked.
    static func engineTime(of engine: AudioEngine, reaches seconds: Double) -> Bool {
        for _ in 0..<3_000 {
            if engine.currentTime.seconds >= seconds { return true }
            usleep(10_000)
        }
        return engine.currentTime.seconds >= seconds
    }

    /// A real-time output delivers on a thread of its own: a handler that
    /// blocks holds back later events, never the audio. Engine time (the
    /// frames the paced file has written) goes on while the handler waits.
    @Test("A handler that blocks does not stop a paced file's feeding, and does not run on the audio thread")
    func blockingHandlerDoesNotStopTheAudio() throws {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("blocked.wav")
            let engine = try AudioEngine(output: .file(url: url, sampleRate: 48_000, pacing: .realTime))
            let tone = try SoundEffect(
                buffer: TestSignal.sine(frequency: 480, duration: MediaTime(seconds: 0.1)),
                name: "tone", engine: engine)
            let handlerBlocked = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let blockedAt = LockedValueBox<MediaTime?>(nil)
            let token = engine.observe { event in
                guard case .voiceStarted = event, blockedAt.withLockedValue({ $0 == nil }) else { return }
                blockedAt.withLockedValue { $0 = engine.currentTime }
                handlerBlocked.signal()
                release.wait()
            }
            let voice = tone.play(looping: .forever)
            #expect(handlerBlocked.wait(timeout: .now() + 30) == .success)
            let start = try #require(blockedAt.withLockedValue { $0 })
            #expect(
                Self.engineTime(of: engine, reaches: start.seconds + 0.5),
                "the engine rendered half a second while the handler blocked")
            release.signal()
            token.cancel()
            voice.stop()
            engine.shutdown()
            let samples = try Media.read(url, settings: AudioFormat(sampleRate: 48_000, channelCount: 2)).floats
            let left = SampleAnalysis.channel(samples, 0, of: 2)
            let from = Int(start.seconds * 48_000) + 4_800
            let to = from + 19_200
            #expect(left.count >= to)
            if left.count >= to {
                // 40 cycles of 480 Hz in each 100 ms window while the handler was blocked: the tone never stopped.
                for window in stride(from: from, to: to, by: 4_800) {
                    #expect(SampleAnalysis.rms(left[window..<(window + 4_800)]) > 0.1, "tone at frame \(window)")
                }
            }
        }
    }

    /// While a handler blocks, events wait for the delivery thread; at most
    /// 4,096 of them, the oldest dropped, so memory stays bounded.
    @Test("Events waiting behind a blocked handler are bounded; completions are never dropped")
    func blockedHandlerBacklogIsBounded() throws {
        try withTemporaryDirectory { dir in
            let engine = try AudioEngine(
                output: .file(url: dir.appendingPathComponent("backlog.wav"), sampleRate: 48_000, pacing: .realTime))
            let tick = try SoundEffect(
                buffer: TestSignal.sine(frequency: 480, duration: MediaTime(seconds: 0.001)),
                name: "tick", engine: engine)
            let blocked = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let first = LockedValueBox(true)
            let token = engine.observe { _ in
                guard
                    first.withLockedValue({ value in
                        defer { value = false }
                        return value
                    })
                else { return }
                blocked.signal()
                release.wait()
            }
            tick.play()
            #expect(blocked.wait(timeout: .now() + 30) == .success)
            let completions = LockedValueBox(0)
            for n in 0..<6_000 {
                if n % 1_000 == 0 {
                    tick.play { _ in completions.withLockedValue { $0 += 1 } }
                } else {
                    tick.play()
                }
            }
            // The plays are taken up at the next update steps: let engine time pass them.
            #expect(Self.engineTime(of: engine, reaches: engine.currentTime.seconds + 0.1))
            let backlog = try #require(engine.eventDeliveryBacklog)
            #expect(backlog.waiting <= 4_096, "at most 4,096 events wait (\(backlog))")
            #expect(backlog.dropped > 0, "the oldest were dropped (\(backlog))")
            release.signal()
            token.cancel()
            engine.shutdown()
            #expect(engine.waitForEventDelivery(atMost: 30))
            #expect(completions.withLockedValue { $0 } == 6, "every completion ran")
        }
    }

    /// A scripted environment posts on the audio thread of a real-time output;
    /// the session's observers still run off it.
    @Test("A session observer that blocks does not stop a paced file's feeding")
    func blockingSessionObserverDoesNotStopTheAudio() throws {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("session.wav")
            let engine = try AudioEngine(output: .file(url: url, sampleRate: 48_000, pacing: .realTime))
            let script = ScriptedEnvironment(
                session: engine.session,
                events: [
                    .init(at: MediaTime(seconds: 0.05), .otherAudioStarted(name: "radio"))
                ])
            let observerBlocked = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let blockedAt = LockedValueBox<MediaTime?>(nil)
            let token = engine.session.observe { _ in
                guard blockedAt.withLockedValue({ $0 == nil }) else { return }
                blockedAt.withLockedValue { $0 = engine.currentTime }
                observerBlocked.signal()
                release.wait()
            }
            script.attach(to: engine)
            #expect(observerBlocked.wait(timeout: .now() + 30) == .success)
            let start = try #require(blockedAt.withLockedValue { $0 })
            #expect(
                Self.engineTime(of: engine, reaches: start.seconds + 0.5),
                "the engine rendered half a second while the session observer blocked")
            release.signal()
            token.cancel()
            engine.shutdown()
        }
    }

    /// The engine's thread holds the engine during a step; when the game has
    /// let go by then, the last release, and so shutdown, happen on that thread.
    @Test("The last release of an engine on its own thread completes the file")
    func lastReleaseOnTheEngineThread() throws {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("released.wav")
            let gameLetGo = DispatchSemaphore(value: 0)
            let completionRan = DispatchSemaphore(value: 0)
            do {
                let engine = try AudioEngine(output: .file(url: url, sampleRate: 48_000, pacing: .realTime))
                let sound = try SoundEffect(
                    buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.05)),
                    name: "blip", engine: engine)
                sound.play { _ in
                    // Hold this step until the game has dropped its reference.
                    completionRan.signal()
                    gameLetGo.wait()
                }
                #expect(completionRan.wait(timeout: .now() + 30) == .success)
            }
            gameLetGo.signal()
            // The file appears, complete, once the engine thread has shut the engine down.
            var complete = false
            for _ in 0..<3_000 where !complete {
                complete = (try? AudioAsset(url: url).details().frameCount).map { $0 >= 2_400 } ?? false
                if !complete { usleep(10_000) }
            }
            #expect(complete, "the engine shut down on its own thread and completed the file")
        }
    }
}
