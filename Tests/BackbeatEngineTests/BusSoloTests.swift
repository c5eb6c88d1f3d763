import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Testing

@Suite("Bus solo")
struct BusSoloTests {
    /// The level of `frequency` in the left channel of `samples`.
    private func level(_ samples: [Float], _ frequency: Double) -> Float {
        SampleAnalysis.level(of: SampleAnalysis.channel(samples, 0, of: 2), atFrequency: frequency, sampleRate: 48_000)
    }

    @Test("Soloing one bus silences the other's tone; its child and the master still sound; unsolo brings it back")
    func soloSilencesTheRest() throws {
        try withOfflineEngine { engine in
            let drums = engine.makeBus(named: "drums")
            let voice = engine.makeBus(named: "voice")
            let kick = engine.makeBus(named: "kick", parent: drums)
            toneOn(try toneEffect(440, on: engine), drums)
            toneOn(try toneEffect(1_000, on: engine), voice)
            toneOn(try toneEffect(700, on: engine), kick)
            _ = try engine.render(frames: 4_800)
            let before = try engine.render(frames: 9_600)
            #expect(level(before, 440) > 0.05 && level(before, 1_000) > 0.05 && level(before, 700) > 0.05)

            drums.isSoloed = true
            _ = try engine.render(frames: 4_800)
            let soloed = try engine.render(frames: 9_600)
            #expect(level(soloed, 1_000) < 1e-4, "the other bus's tone vanishes")
            #expect(abs(level(soloed, 440) - level(before, 440)) < 1e-3, "the soloed bus sounds as before")
            #expect(abs(level(soloed, 700) - level(before, 700)) < 1e-3, "so does its child")
            #expect(drums.isSoloed && !voice.isSoloed)

            drums.isSoloed = false
            _ = try engine.render(frames: 4_800)
            let after = try engine.render(frames: 9_600)
            #expect(abs(level(after, 1_000) - level(before, 1_000)) < 1e-3)
        }
    }

    @Test("Soloing a child keeps its parent's path; a bus made during a solo is silenced; two solos add up")
    func soloPaths() throws {
        try withOfflineEngine { engine in
            let drums = engine.makeBus(named: "drums")
            let kick = engine.makeBus(named: "kick", parent: drums)
            toneOn(try toneEffect(440, on: engine), drums)
            toneOn(try toneEffect(700, on: engine), kick)
            kick.isSoloed = true
            let late = engine.makeBus(named: "late")
            toneOn(try toneEffect(1_000, on: engine), late)
            _ = try engine.render(frames: 4_800)
            let out = try engine.render(frames: 9_600)
            #expect(level(out, 700) > 0.05, "the soloed child sounds")
            #expect(level(out, 440) > 0.05, "its parent's own voices too: the parent is on the soloed path")
            #expect(level(out, 1_000) < 1e-4, "a bus made while another is soloed is silent")

            late.isSoloed = true
            _ = try engine.render(frames: 4_800)
            #expect(level(try engine.render(frames: 9_600), 1_000) > 0.05, "two solos: both heard")
        }
    }

    @Test("A solo ramps: no click when the other bus goes silent")
    func soloRamps() throws {
        try withOfflineEngine { engine in
            let a = engine.makeBus(named: "a")
            let b = engine.makeBus(named: "b")
            _ = try playLoopingConstantOn(engine, bus: a)
            _ = try playLoopingConstantOn(engine, bus: b)
            _ = try engine.render(frames: 4_800)
            a.isSoloed = true
            let out = try engine.render(frames: 4_800)
            #expect(SampleAnalysis.maxJump(out, channels: 2) < 0.05)
            #expect(abs(out[out.count - 2] * 2 - out[0]) < 0.01, "half the level once b is silent")
        }
    }

    private func toneOn(_ sound: SoundEffect, _ bus: Bus) {
        sound.play(looping: .forever, bus: bus)
    }

    private func playLoopingConstantOn(_ engine: AudioEngine, bus: Bus) throws -> Voice {
        let sound = try SoundEffect(buffer: TestSignal.constant(0.5, frames: 48_000), name: "dc", engine: engine)
        return sound.play(looping: .forever, bus: bus)
    }
}
