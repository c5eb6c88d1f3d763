import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Testing

@testable import BackbeatEffects

/// A long filter glide (the acoustics' 40 ms) that moves each band by little
/// a step is stepped every other period, and asks for no step in between;
/// a steep one is stepped every period while its steps are large. Either
/// ends where it was told, and the tone is heard at that level.
@Suite("Voice filter glides, cadence")
struct GentleGlideTests {
    /// Renders `frames` and returns the update steps they took.
    private func steps(_ engine: AudioEngine, rendering frames: Int) throws -> Int {
        let before = engine.withLock(waking: false) { engine.renderCounts.steps }
        _ = try engine.render(frames: frames)
        return engine.withLock(waking: false) { engine.renderCounts.steps } - before
    }

    /// A settled looping tone and its level, on `engine`.
    private func settledTone(on engine: AudioEngine) throws -> (Voice, Float) {
        let voice = try toneEffect(700, on: engine).play(looping: .forever)
        _ = try engine.render(frames: 4_800)
        return (voice, SampleAnalysis.rms(try engine.render(frames: 4_800)))
    }

    @Test("A gentle 40 ms glide steps every other period, and ends at its target")
    func gentleGlideStepsCoarsely() throws {
        try withOfflineEngine { engine in
            let (voice, open) = try settledTone(on: engine)
            let period = engine.updateInterval
            #expect(try steps(engine, rendering: 8 * period) == 0, "a settled voice asks for no step")
            // 1 → 0.8 over 40 ms: 0.05 of the voice's level a coarse step.
            let gains = FilterGains(gain: 0.8, gainLF: 1, gainHF: 1)
            engine.setAcousticFilters(
                [AcousticVoiceFilter(voice: voice, direct: gains, send: gains)], over: MediaTime(seconds: 0.04))
            let start = try steps(engine, rendering: 4 * period)
            #expect(start <= 3, "\(start) update steps in the first 4 periods of a gentle glide")
            let gliding = try steps(engine, rendering: 12 * period) + start
            // Every period would be 8 or more (40 ms of 5 ms periods).
            #expect(gliding <= 5, "\(gliding) update steps for a gentle 40 ms glide")
            #expect(engine.withLock { voice.mix.appliedDirect } == gains)
            let level = SampleAnalysis.rms(try engine.render(frames: 4_800))
            #expect(abs(level / open - 0.8) < 0.01, "the tone ends at 0.8 of its level: \(level / open)")
        }
    }

    @Test("A steep 40 ms glide is stepped while its steps are large, and ends at its target")
    func steepGlideStepsWhileLarge() throws {
        try withOfflineEngine { engine in
            let (voice, open) = try settledTone(on: engine)
            let period = engine.updateInterval
            // 1 → 0.05 over 40 ms: far more than 1 dB of the voice's level a step.
            let gains = FilterGains(gain: 0.05, gainLF: 1, gainHF: 1)
            engine.setAcousticFilters(
                [AcousticVoiceFilter(voice: voice, direct: gains, send: gains)], over: MediaTime(seconds: 0.04))
            // Its large steps are each stepped; only its small last ones go every other period.
            let start = try steps(engine, rendering: 4 * period)
            let rest = try steps(engine, rendering: 12 * period)
            #expect(start + rest >= 6, "\(start + rest) update steps for a steep 40 ms glide")
            #expect(engine.withLock { voice.mix.appliedDirect } == gains)
            let level = SampleAnalysis.rms(try engine.render(frames: 4_800))
            #expect(abs(level / open - 0.05) < 0.005, "the tone ends at 0.05 of its level: \(level / open)")
        }
    }
}
