import Foundation
import Testing
import Backbeat
@testable import BackbeatEngine
import BackbeatTesting

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
                sawRouteChange = true; break
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
            let sources = engine.device.liveSources.count, buffers = engine.device.liveBuffers.count
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
