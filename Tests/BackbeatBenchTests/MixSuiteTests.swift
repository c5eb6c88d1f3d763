import Backbeat
import BackbeatBench
import Foundation
import Testing

/// The mix benchmark compares like with like: the same scene renders the same
/// samples through Backbeat and through raw OpenAL, and the harness reports
/// sane numbers. No timing is asserted.
@Suite("Mix benchmark")
struct MixSuiteTests {
    @Test("Backbeat and raw OpenAL render bit-identical samples for the same scene", arguments: [1, 8, 32])
    func sameSamples(voices: Int) throws {
        // 2 s crosses every sound's loop point at least once (the longest is 1.25 s).
        let (backbeat, raw) = try MixScene(voiceCount: voices).renderBoth(frames: 96_000)
        #expect(backbeat.count == raw.count)
        let firstDifference = zip(backbeat, raw).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(firstDifference == nil, "first differing sample: \(String(describing: firstDifference))")
        let energy = backbeat.reduce(Float(0)) { $0 + $1 * $1 }
        #expect(energy > 1, "the scene is audible")
    }

    @Test("A different scene renders different samples, so the comparison can fail")
    func differentSceneDiffers() throws {
        let a = try MixScene(voiceCount: 8, seed: 1).renderBoth(frames: 9_600).backbeat
        let b = try MixScene(voiceCount: 8, seed: 2).renderBoth(frames: 9_600).raw
        #expect(a != b)
    }

    @Test("Every voice of the scene is audible through Backbeat, up to the pool's capacity")
    func maximumVoicesAudible() throws {
        let suite = MixSuite()
        let (audible, sources) = try suite.maximumVoices()
        #expect(audible > 64 && audible < sources)
        let side = try MixScene(voiceCount: audible).startBackbeat()
        defer { side.close() }
        #expect(side.voices.allSatisfy { $0.state == .playing })
    }

    @Test("The harness reports positive, finite throughputs and a plausible ratio")
    func saneMeasurement() throws {
        let m = try MixSuite().measure(voices: 8, seconds: 0.05, rounds: 2)
        for value in [m.backbeatXRealTime, m.rawXRealTime, m.ratio] {
            #expect(value.isFinite && value > 0)
        }
        #expect((0.01...100).contains(m.ratio))
    }

    @Test("A quick run reports every stable figure")
    func quickRunFigures() throws {
        let figures = try MixSuite().run(BenchOptions(quick: true), log: { _ in })
        let byKey = Dictionary(figures.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        for key in ["ratio_32", "ratio_64", "ratio_max", "xrealtime_64", "ratio_env_64", "xrealtime_env_64"] {
            let value = try #require(byKey[key], "figure \(key)")
            #expect(value.isFinite && value > 0, "\(key) = \(value)")
        }
        #expect(byKey["max_sample_difference"] == 0)
        #expect((byKey["voices_max"] ?? 0) > 64)
    }

    @Test("The environment scene: both sides render the same reverb, filters and sends, to within 0.5 dB")
    func environmentScene() throws {
        var scene = MixScene(voiceCount: 64)
        scene.environment = true
        let (backbeat, raw) = try scene.renderBoth(frames: 48_000)
        var plain = MixScene(voiceCount: 64)
        plain.environment = false
        let dry = try plain.renderBoth(frames: 48_000).backbeat
        func rms(_ s: [Float]) -> Double {
            (Double(s.reduce(Float(0)) { $0 + $1 * $1 }) / Double(s.count)).squareRoot()
        }
        #expect(rms(backbeat) > 0.01)
        #expect(abs(20 * log10(rms(backbeat) / rms(raw))) < 0.5, "Backbeat \(rms(backbeat)), raw \(rms(raw))")
        #expect(backbeat != dry, "the environment changes the mix")
        let m = try MixSuite().measure(voices: 64, seconds: 0.05, rounds: 2, environment: true)
        #expect(m.backbeatXRealTime.isFinite && m.backbeatXRealTime > 0 && m.rawXRealTime > 0)
    }
}
