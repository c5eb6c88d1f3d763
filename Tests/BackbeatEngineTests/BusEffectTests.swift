import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// Bus effects (echo, ring modulator, equalizer) on rendered samples.
@Suite("Bus effects")
struct BusEffectTests {
    private func db(_ a: Float, _ b: Float) -> Double { 20 * log10(Double(a) / Double(b)) }

    private func left(_ samples: [Float]) -> [Float] { SampleAnalysis.channel(samples, 0, of: 2) }

    @Test("An echo on a bus gives a copy of a burst at the echo delay, at the wet level, and nothing between")
    func echoDelay() throws {
        try withOfflineEngine { engine in
            let bus = engine.makeBus(named: "fx")
            try bus.setEffect(.echo(delay: MediaTime(seconds: 0.1)), wetDryMix: 0.5)
            _ = try engine.render(frames: 4_800)
            let burst = try SoundEffect(
                buffer: TestSignal.sine(frequency: 1_000, duration: MediaTime(seconds: 0.02)), name: "burst",
                engine: engine)
            burst.play(bus: bus)
            let out = left(try engine.render(frames: 14_400))
            let start = try #require(SampleAnalysis.firstAudibleFrame(out, channels: 1, threshold: 0.01))
            let dry = SampleAnalysis.rms(out[start..<(start + 960)])
            let between = SampleAnalysis.rms(out[(start + 1_920)..<(start + 3_840)])
            let echo = SampleAnalysis.rms(out[(start + 4_800)..<(start + 5_760)])
            // The direct path keeps 1 - 0.5 of the voice; the send feeds 0.5 to the echo.
            // so the echo's first tap comes back at the dry level (EFX's centre pan
            // of the effect output is within 3 dB of a source's).
            #expect(abs(db(echo, dry)) < 3, "echo \(echo) vs dry \(dry)")
            #expect(between < dry / 100, "between \(between) vs dry \(dry)")
            let onset = SampleAnalysis.firstAudibleFrame(
                Array(out[(start + 1_920)...]), channels: 1, threshold: 0.01)
            #expect(onset.map { abs($0 + 1_920 - 4_800) <= 48 } == true, "echo onset \(String(describing: onset))")
        }
    }

    /// The left channel of a looping tone on `bus` (made by `setUp`) after it settles.
    private func tone(_ frequency: Double, _ setUp: (AudioEngine) throws -> Bus?) throws -> [Float] {
        try withOfflineEngine { engine in
            let bus = try setUp(engine)
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: frequency, duration: MediaTime(seconds: 1)), name: "tone",
                engine: engine)
            sound.play(looping: .forever, bus: bus)
            _ = try engine.render(frames: 9_600)
            return left(try engine.render(frames: 24_000))
        }
    }

    @Test("A ring modulator on a parent bus moves a child bus's 1 kHz tone to 700 Hz and 1300 Hz")
    func ringModulatorOnChildBus() throws {
        let out = try tone(1_000) { engine in
            let parent = engine.makeBus(named: "world")
            try parent.setEffect(.ringModulator(frequency: 300))
            return engine.makeBus(named: "pads", parent: parent)
        }
        func at(_ f: Double) -> Float { SampleAnalysis.level(of: out, atFrequency: f, sampleRate: 48_000) }
        #expect(at(700) > 10 * at(1_000), "700 Hz \(at(700)), 1 kHz \(at(1_000))")
        #expect(at(1_300) > 10 * at(1_000), "1300 Hz \(at(1_300)), 1 kHz \(at(1_000))")
    }

    @Test("An equalizer band cut lowers a tone in that band by its gain within 1 dB and leaves the low band")
    func equalizerCut() throws {
        let cut: (AudioEngine) throws -> Bus? = { engine in
            let bus = engine.makeBus(named: "eq")
            try bus.setEffect(.equalizer(mid2Gain: -12))
            return bus
        }
        let open3k = SampleAnalysis.rms(try tone(3_000) { _ in nil })
        let cut3k = SampleAnalysis.rms(try tone(3_000, cut))
        #expect(abs(db(cut3k, open3k) + 12) < 1, "\(db(cut3k, open3k)) dB at 3 kHz")
        let open100 = SampleAnalysis.rms(try tone(100) { _ in nil })
        let cut100 = SampleAnalysis.rms(try tone(100, cut))
        #expect(abs(db(cut100, open100)) < 1, "\(db(cut100, open100)) dB at 100 Hz")
    }

    @Test("Removing the effect restores the dry signal, gliding without a click")
    func removeRestoresDry() throws {
        let open = try tone(1_000) { _ in nil }
        try withOfflineEngine { engine in
            let bus = engine.makeBus(named: "fx")
            try bus.setEffect(.ringModulator(frequency: 300))
            let sound = try toneEffect(1_000, on: engine)
            sound.play(looping: .forever, bus: bus)
            _ = try engine.render(frames: 9_600)
            #expect(bus.effect == .ringModulator(frequency: 300))
            try bus.setEffect(nil)
            #expect(bus.effect == nil)
            let glide = left(try engine.render(frames: 9_600))
            #expect(SampleAnalysis.maxJump(glide, channels: 1) < 0.2)
            let dry = left(try engine.render(frames: 24_000))
            #expect(abs(db(SampleAnalysis.rms(dry), SampleAnalysis.rms(open))) < 0.2)
            let f1k = SampleAnalysis.level(of: dry, atFrequency: 1_000, sampleRate: 48_000)
            let f700 = SampleAnalysis.level(of: dry, atFrequency: 700, sampleRate: 48_000)
            #expect(f700 < f1k / 100)
        }
    }

    @Test("Out-of-range effect values are typed errors naming the value, and leave the bus as it was")
    func badParameters() throws {
        try withOfflineEngine { engine in
            let bus = engine.makeBus(named: "fx")
            let bad: [(BusEffect, Float)] = [
                (.echo(delay: MediaTime(seconds: 0.5)), 1), (.echo(delay: .zero, feedback: 2), 1),
                (.ringModulator(frequency: -1), 1), (.ringModulator(frequency: .nan), 1),
                (.equalizer(lowGain: 30), 1), (.equalizer(), 1.5), (.equalizer(), -0.1),
            ]
            for (effect, mix) in bad {
                do {
                    try bus.setEffect(effect, wetDryMix: mix)
                    Issue.record("\(effect) at \(mix) was accepted")
                } catch let error as BackbeatError {
                    #expect(error.code == .invalidArgument)
                    #expect(!error.description.contains("\n"))
                }
                #expect(bus.effect == nil)
            }
        }
    }
}
