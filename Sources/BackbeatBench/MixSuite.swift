import Backbeat
import BackbeatEngine
import Foundation

/// Backbeat's mixing overhead: the same looping voices rendered offline
/// through an engine (voice pool, buses, update steps every 5 ms) and through
/// raw OpenAL calls, at 32, 64 and the most voices Backbeat makes audible.
///
/// Both sides render in calls of one update period (5 ms), the quantum a
/// device mixes in, so the ratio measures Backbeat's own work rather than a
/// chunk-size difference. Rounds alternate the sides (A B, B A, ...; see
/// ``Rounds``) and each figure is the median of the rounds, with its spread.
package struct MixSuite: BenchSuite {
    package let name = "mix"
    package let summary =
        "offline mixing throughput, Backbeat vs raw OpenAL with the same voices (32, 64, max), alternating rounds"

    /// The suite.
    package init() {}

    /// One size's measurement, round by round.
    package struct Measurement: Sendable {
        /// Voices in the scene.
        package let voices: Int
        /// Backbeat's throughput in each round, × real time.
        package let backbeatRounds: [Double]
        /// Raw OpenAL's throughput in each round, × real time.
        package let rawRounds: [Double]
        /// Backbeat's throughput over raw OpenAL's, in each round.
        package var ratioRounds: [Double] { Rounds.ratios(backbeatRounds, rawRounds) }
        /// Backbeat's median throughput, × real time.
        package var backbeatXRealTime: Double { median(backbeatRounds) }
        /// Raw OpenAL's median throughput, × real time.
        package var rawXRealTime: Double { median(rawRounds) }
        /// The median of the rounds' ratios.
        package var ratio: Double { median(ratioRounds) }
    }

    /// Renders `seconds` of a `voices`-voice scene once per side in each of
    /// `rounds` interleaved rounds.
    package func measure(
        voices: Int, seconds: Double, rounds: Int, environment: Bool = false, log: (String) -> Void = { _ in }
    ) throws -> Measurement {
        var scene = MixScene(voiceCount: voices)
        scene.environment = environment
        let frames = Int(seconds * Double(scene.sampleRate))
        let block = 4_800
        var samples = [Float](repeating: 0, count: block * 2)

        func runBackbeat() throws -> Double {
            let side = try scene.startBackbeat()
            defer { side.close() }
            let start = monotonicNanoseconds()
            var done = 0
            while done < frames {
                let n = min(block, frames - done)
                try side.render(frames: n, into: &samples)
                done += n
            }
            return seconds / (Double(monotonicNanoseconds() - start) / 1e9)
        }
        func runRaw() throws -> Double {
            let side = try scene.startRaw(chunk: scene.sampleRate / 200)
            defer { side.close() }
            let start = monotonicNanoseconds()
            var done = 0
            while done < frames {
                let n = min(block, frames - done)
                side.render(frames: n, into: &samples)
                done += n
            }
            return seconds / (Double(monotonicNanoseconds() - start) / 1e9)
        }
        let values = try Rounds.interleaved(rounds, sides: [runBackbeat, runRaw]) { round, v in
            log("\(voices) voices, round \(round): Backbeat \(fmt(v[0]))× real time, raw OpenAL \(fmt(v[1]))×")
        }
        return Measurement(voices: voices, backbeatRounds: values[0], rawRounds: values[1])
    }

    /// The largest difference between Backbeat's and raw OpenAL's output for
    /// the same `voices`-voice scene over `frames` frames (0 when bit-identical).
    package func sampleDifference(voices: Int, frames: Int) throws -> (difference: Float, peak: Float) {
        let (a, b) = try MixScene(voiceCount: voices).renderBoth(frames: frames)
        return (zip(a, b).reduce(Float(0)) { max($0, abs($1.0 - $1.1)) }, a.reduce(Float(0)) { max($0, abs($1)) })
    }

    /// The most voices Backbeat makes audible at once on this machine's OpenAL.
    package func maximumVoices() throws -> (audible: Int, sources: Int) {
        let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
        defer { engine.shutdown() }
        return (engine.audibleVoiceCapacity, engine.voiceSourceCount)
    }

    package func run(_ options: BenchOptions, log: (String) -> Void) throws -> [Figure] {
        let seconds = options.quick ? 0.25 : 20
        let rounds = options.rounds
        let (maxVoices, sources) = try maximumVoices()
        log("device: \(sources) voice sources, \(maxVoices) audible at once (the rest is the hand-off reserve)")
        var figures: [Figure] = []
        var worstDifference: Float = 0
        for (label, voices) in [("32", 32), ("64", 64), ("max", maxVoices)] {
            let (difference, peak) = try sampleDifference(voices: voices, frames: 96_000)
            worstDifference = max(worstDifference, difference)
            log("\(voices) voices: largest sample difference \(difference), output peak \(peak)")
            let m = try measure(voices: voices, seconds: seconds, rounds: rounds, log: log)
            log(
                "\(voices) voices: Backbeat \(fmt(m.backbeatXRealTime))×, raw \(fmt(m.rawXRealTime))×, ratio \(fmt(m.ratio)) (\(fmt(m.ratioRounds.min()!))–\(fmt(m.ratioRounds.max()!)))"
            )
            figures += [
                Figure(
                    key: "ratio_\(label)", rounds: m.ratioRounds,
                    unit:
                        "Backbeat's throughput over raw OpenAL's, \(voices) voices, median of \(rounds) rounds (goal ≥ 0.95)"
                ),
                Figure(
                    key: "xrealtime_\(label)", rounds: m.backbeatRounds,
                    unit: "× real time, Backbeat, \(voices) voices, median of \(rounds) rounds"),
                Figure(
                    key: "raw_xrealtime_\(label)", rounds: m.rawRounds,
                    unit: "× real time, raw OpenAL, \(voices) voices, median of \(rounds) rounds"),
            ]
        }
        // The environment: 64 voices sending to a reverb blended from two zones,
        // occluded, under an effects-bus low-pass; raw OpenAL with the same EFX setup.
        let env = try measure(voices: 64, seconds: seconds, rounds: rounds, environment: true, log: log)
        log(
            "64 voices, two reverb zones: Backbeat \(fmt(env.backbeatXRealTime))×, raw \(fmt(env.rawXRealTime))×, ratio \(fmt(env.ratio))"
        )
        figures += [
            Figure(
                key: "ratio_env_64", rounds: env.ratioRounds,
                unit:
                    "Backbeat's throughput over raw OpenAL's with the same EFX reverb, filters and sends, 64 voices, two zones, median of \(rounds) rounds (goal ≥ 0.95)"
            ),
            Figure(
                key: "xrealtime_env_64", rounds: env.backbeatRounds,
                unit:
                    "× real time, Backbeat, 64 voices sending to two reverb zones, occluded, bus low-pass, median of \(rounds) rounds"
            ),
            Figure(
                key: "raw_xrealtime_env_64", rounds: env.rawRounds,
                unit: "× real time, raw OpenAL with the same EFX setup, 64 voices, median of \(rounds) rounds"),
        ]
        figures += [
            Figure(key: "voices_max", value: Double(maxVoices), unit: "voices at \"max\" (of \(sources) pool sources)"),
            Figure(
                key: "max_sample_difference", value: Double(worstDifference),
                unit:
                    "largest absolute difference between a Backbeat and a raw OpenAL sample over 2 s of each scene (0: bit-identical)"
            ),
        ]
        return figures
    }

    private func fmt(_ v: Double) -> String { String(format: "%.2f", v) }
}
