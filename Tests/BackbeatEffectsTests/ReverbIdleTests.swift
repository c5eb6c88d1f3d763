import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Testing

@testable import BackbeatEffects

/// The environment reverb costs nothing while no voice sends to it: OpenAL
/// Soft runs a loaded reverb on silence all the same.
@Suite("Environment reverb, idle")
struct ReverbIdleTests {
    @Test("A reverb nobody sends to is unloaded; a send loads it, and its tail rings out before it unloads again")
    func idleReverbUnloads() throws {
        try withOfflineEngine { engine in
            var reverb = try AudioEnvironmentReverbParameters(preset: "hangar")
            reverb.decayTime = MediaTime(seconds: 0.3)
            engine.reverbParameters = reverb
            func loaded() -> Bool { engine.withLock { engine.environmentLocked.isEffectLoaded } }
            let sound = try toneEffect(700, on: engine)
            let voice = sound.play(looping: .forever)
            voice.filter = .gains(gain: 0, gainLF: 1, gainHF: 1)  // the reverb alone
            _ = try engine.render(frames: 4_800)
            #expect(!loaded(), "a dry voice: the reverb is not running")
            voice.reverbBlend = 1
            _ = try engine.render(frames: 4_800)
            #expect(loaded())
            let wet = SampleAnalysis.rms(try engine.render(frames: 4_800))
            #expect(wet > 1e-3, "the reverb sounds")
            voice.stop()
            // The tail rings on after the last send (0.3 s decay: well within 0.4 s).
            _ = try engine.render(frames: 2_400)
            #expect(loaded())
            #expect(SampleAnalysis.rms(try engine.render(frames: 4_800)) > 1e-5)
            // Twice the decay and its delays later, nothing is left to hear: unloaded.
            _ = try engine.render(frames: 48_000)
            #expect(!loaded())
        }
    }

    @Test("A dry voice whose filters glide stays off the reverb's slot, and the reverb stays unloaded")
    func dryGlideSendsNothing() throws {
        try withOfflineEngine { engine in
            engine.reverbParameters = try AudioEnvironmentReverbParameters(preset: "hangar")
            let sound = try toneEffect(700, on: engine)
            let voice = sound.play(looping: .forever)
            _ = try engine.render(frames: 4_800)
            // What the acoustics hand over: new direct and send filters, gliding over 40 ms.
            let gains = FilterGains(gain: 0.1, gainLF: 1, gainHF: 0.5)
            engine.setAcousticFilters(
                [AcousticVoiceFilter(voice: voice, direct: gains, send: gains)], over: MediaTime(seconds: 0.04))
            _ = try engine.render(frames: 480)
            #expect(engine.withLock { voice.mix.target?.direct } == gains, "the glide is under way")
            // The send's level is 0 (no reverb blend) before and after: it stays 0, not -100 dB.
            #expect(engine.withLock { voice.mix.appliedSend?.slot } == nil)
            #expect(!engine.withLock { engine.environmentLocked.isEffectLoaded })
        }
    }

    @Test("Settled reverbs ask for no update step: the environment's and a room's, once their glides end")
    func settledReverbsAskForNoStep() throws {
        try withOfflineEngine { engine in
            engine.reverbParameters = try AudioEnvironmentReverbParameters(preset: "hangar")
            let cave = try AudioEnvironmentReverbParameters(preset: "cave")
            engine.setRoomReverbs([RoomReverb(room: "b", reverb: cave, gain: 0.5)], over: MediaTime(seconds: 0.04))
            // The glides end (40 ms, and the de-zipper's).
            _ = try engine.render(frames: 9_600)
            let period = engine.updateInterval
            let before = engine.withLock(waking: false) { engine.renderCounts.steps }
            _ = try engine.render(frames: 40 * period)
            let steps = engine.withLock(waking: false) { engine.renderCounts.steps } - before
            #expect(steps == 0, "\(steps) update steps in 40 idle periods")
            // A change still steps, and the room's level glides to it.
            engine.setRoomReverbs([RoomReverb(room: "b", reverb: cave, gain: 0.25)], over: MediaTime(seconds: 0.04))
            _ = try engine.render(frames: 20 * period)
            let gliding = engine.withLock(waking: false) { engine.renderCounts.steps } - before
            #expect(gliding >= 8, "\(gliding) update steps for a 40 ms glide")
        }
    }
}
