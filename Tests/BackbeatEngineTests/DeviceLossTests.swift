import Backbeat
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatEffects
@testable import BackbeatEngine

@Suite("Device loss")
struct DeviceLossTests {
    @Test("After the device is lost, a voice continues from where it was on the replacement")
    func voiceContinues() throws {
        try withOfflineEngine { engine in
            let recorder = EventRecorder(engine)
            // A two-second ramp: the level says the position.
            let ramp = try PCMBuffer(
                format: AudioFormat(sampleRate: 48_000, channelCount: 1),
                floats: (0..<96_000).map { Float($0) / 96_000 })
            let sound = try SoundEffect(buffer: ramp, name: "ramp", engine: engine)
            let voice = sound.play(looping: .forever)
            _ = try engine.render(frames: 48_000)
            let before = voice.currentTime.seconds
            engine.simulateDeviceLoss()
            #expect(recorder.events.contains { if case .outputLost = $0 { true } else { false } })
            let out = SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2)
            #expect(voice.state == .playing)
            // It came back within a couple of updates, at its place plus the time that passed.
            let heard = Double(out.last!) / 0.5957 * 2  // ramp value × 2 s = position in seconds
            #expect(abs(heard - (before + 0.1)) < 0.02)
            #expect(abs(voice.currentTime.seconds - (before + 0.1)) < 0.02)
        }
    }

    @Test("The session hears old device unavailable, from the system")
    func sessionHearsIt() async throws {
        let engine = try AudioEngine(output: .offline())
        defer { engine.shutdown() }
        engine.session.setActive(true)
        let updates = engine.session.events()
        engine.simulateDeviceLoss()
        var iterator = updates.makeAsyncIterator()
        var sawRouteChange = false
        while let update = await iterator.next() {
            if case .event(.routeChange(reason: .oldDeviceUnavailable, _, _), .system) = update.cause {
                sawRouteChange = true
                break
            }
        }
        #expect(sawRouteChange)
    }

    @Test("Sounds loaded before the loss play on the replacement; counts stay balanced")
    func buffersMove() throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.2)), name: "beep", engine: engine
            )
            let sources = engine.device.liveSources.count
            let buffers = engine.device.liveBuffers.count
            engine.simulateDeviceLoss()
            #expect(engine.device.liveSources.count == sources)
            #expect(engine.device.liveBuffers.count == buffers)
            sound.play()
            #expect(SampleAnalysis.rms(try engine.render(frames: 4_800)) > 0.1)
        }
    }
}

@Suite("Device loss without a replacement")
struct DeviceLossFallbackTests {
    @Test("A route change to a device that cannot be opened: the engine stays usable and says so")
    func noReplacement() throws {
        try withOfflineEngine { engine in
            let recorder = EventRecorder(engine)
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.5)), name: "beep", engine: engine
            )
            sound.play()
            _ = try engine.render(frames: 2_400)
            engine.simulateDeviceLoss(reopen: {
                throw BackbeatError(
                    .deviceUnavailable, operation: "alcOpenDevice", reason: "headphones gone, no speakers")
            })
            let lost = recorder.events.compactMap { event -> (String?, String)? in
                if case .outputLost(_, let replacement, let reason) = event { (replacement, reason) } else { nil }
            }.last
            #expect(lost?.0 == nil, "no replacement device")
            #expect(lost?.1.contains("headphones gone") == true)
            // Still usable: time moves, sounds play (into the loopback device that stands in).
            let before = engine.currentTime
            let out = try engine.render(frames: 4_800)
            #expect(engine.currentTime > before)
            #expect(SampleAnalysis.rms(out) > 0.1)
            #expect(engine.session.currentRoute.name == "none")
        }
    }
}

/// Re-decoding the cached sounds after a device loss runs outside the engine
/// lock: the decode is made observable through the cache's decode hook, which
/// runs in the middle of the recovery and asks another thread to take the
/// engine lock while the decode is still under way.
@Suite("Device loss: re-decoding outside the lock")
struct DeviceLossRedecodeTests {
    /// What happened, in order, across threads.
    final class Order: Sendable {
        private let entries = LockedValueBox<[String]>([])
        func append(_ entry: String) { entries.withLockedValue { $0.append(entry) } }
        var all: [String] { entries.withLockedValue { $0 } }
    }

    /// A two-second mono ramp in a WAV file: the level says the position.
    private func rampFile(in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent("ramp.wav")
        let ramp = try PCMBuffer(
            format: AudioFormat(sampleRate: 48_000, channelCount: 1),
            floats: (0..<96_000).map { Float($0) / 96_000 })
        try writeWAV(ramp, to: url)
        return url
    }

    /// Loads `sound` and waits for it (the load decodes on the cache's loader).
    private func load(_ sound: SoundEffect) throws {
        let done = DispatchSemaphore(value: 0)
        let outcome = Order()
        sound.preload { result in
            if case .failure(let error) = result { outcome.append("\(error)") }
            done.signal()
        }
        done.wait()
        #expect(outcome.all.isEmpty)
    }

    @Test(
        "While a recovery decodes a cached sound again, another thread takes the engine lock; the voice then continues")
    func redecodeOutsideTheLock() throws {
        try withTemporaryDirectory { dir in
            try withOfflineEngine { engine in
                let sound = SoundEffect(contentsOf: try rampFile(in: dir), engine: engine)
                try load(sound)
                let voice = sound.play(looping: .forever)
                _ = try engine.render(frames: 48_000)
                let before = voice.currentTime.seconds
                let sources = engine.device.liveSources.count
                let buffers = engine.device.liveBuffers.count
                let order = Order()
                engine.withLock {
                    engine.effectCacheLocked.decodeObserver = { name in
                        order.append("decode \(name)")
                        let took = DispatchSemaphore(value: 0)
                        Thread.detachNewThread {
                            _ = engine.currentTime  // needs the engine lock
                            order.append("another thread took the lock")
                            took.signal()
                        }
                        // Only a guard against hanging forever: while the lock is
                        // held around the decode, the other thread cannot finish.
                        if took.wait(timeout: .now() + 20) == .timedOut { order.append("the lock stayed taken") }
                    }
                }
                engine.simulateDeviceLoss()
                order.append("recovery done")
                #expect(order.all == ["decode ramp.wav", "another thread took the lock", "recovery done"])
                // The voice is back at its place plus the time that passed, with the counts balanced.
                let out = SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2)
                #expect(voice.state == .playing)
                let heard = Double(out.last!) / 0.5957 * 2
                #expect(abs(heard - (before + 0.1)) < 0.02)
                #expect(engine.device.liveSources.count == sources)
                #expect(engine.device.liveBuffers.count == buffers)
            }
        }
    }

    @Test(
        "A second loss during a recovery's decoding: the later recovery wins, the sound plays once, counts stay balanced"
    )
    func secondLossDuringTheDecode() throws {
        try withTemporaryDirectory { dir in
            try withOfflineEngine { engine in
                let sound = SoundEffect(contentsOf: try rampFile(in: dir), engine: engine)
                try load(sound)
                let voice = sound.play(looping: .forever)
                _ = try engine.render(frames: 48_000)
                let before = voice.currentTime.seconds
                let sources = engine.device.liveSources.count
                let buffers = engine.device.liveBuffers.count
                let order = Order()
                engine.withLock {
                    engine.effectCacheLocked.decodeObserver = { name in
                        order.append("decode \(name)")
                        // The first recovery's decode: the device goes again meanwhile.
                        if order.all.count == 1 { engine.simulateDeviceLoss() }
                    }
                }
                let recorder = EventRecorder(engine)
                engine.simulateDeviceLoss()
                // The first recovery decoded, the second decoded and uploaded; the first then found itself stale.
                #expect(order.all == ["decode ramp.wav", "decode ramp.wav"])
                #expect(recorder.events.filter { if case .outputLost = $0 { true } else { false } }.count == 2)
                #expect(engine.device.liveSources.count == sources)
                #expect(engine.device.liveBuffers.count == buffers)
                let out = SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2)
                #expect(voice.state == .playing)
                #expect(abs(Double(out.last!) / 0.5957 * 2 - (before + 0.1)) < 0.02)
            }
        }
    }

    @Test("Shutdown during a recovery's decoding: the decode's result is dropped, nothing is uploaded, nothing hangs")
    func shutdownDuringTheDecode() throws {
        try withTemporaryDirectory { dir in
            let engine = try AudioEngine(output: .offline())
            defer { engine.shutdown() }
            let sound = SoundEffect(contentsOf: try rampFile(in: dir), engine: engine)
            try load(sound)
            let voice = sound.play(looping: .forever)
            _ = try engine.render(frames: 4_800)
            engine.withLock { engine.effectCacheLocked.decodeObserver = { _ in engine.shutdown() } }
            engine.simulateDeviceLoss()
            #expect(!engine.isRunning)
            #expect(engine.device.liveBuffers.isEmpty && engine.device.liveSources.isEmpty)
            #expect(voice.state == .finished)
            #expect(throws: BackbeatError.self) { try engine.render(frames: 480) }
        }
    }

    @Test("A sound played while a recovery decodes it again starts once it is uploaded, and is heard")
    func playDuringTheDecode() throws {
        try withTemporaryDirectory { dir in
            try withOfflineEngine { engine in
                let sound = SoundEffect(contentsOf: try rampFile(in: dir), engine: engine)
                try load(sound)
                let started = Order()
                engine.withLock {
                    engine.effectCacheLocked.decodeObserver = { _ in
                        let voice = sound.play()
                        started.append("\(voice.state)")
                    }
                }
                let recorder = EventRecorder(engine)
                engine.simulateDeviceLoss()
                #expect(started.all == ["pending"])
                #expect(recorder.events.contains { if case .voiceStarted(_, _, _, true) = $0 { true } else { false } })
                let out = SampleAnalysis.channel(try engine.render(frames: 48_000), 0, of: 2)
                // The ramp from its start: a quarter of the way up after half a second.
                #expect(abs(Double(out[23_999]) / 0.5957 - 0.25) < 0.01)
            }
        }
    }
}
