@_spi(Benchmark) import Backbeat
import Foundation

/// Backbeat's mixing overhead: the same looping voices rendered offline
/// through an engine (voice pool, buses, update steps every 5 ms) and through
/// raw OpenAL calls, at 32, 64 and the most voices Backbeat makes audible.
///
/// Both sides render in calls of one update period (5 ms), the quantum a
/// device mixes in, so the ratio measures Backbeat's own work rather than a
/// chunk-size difference. Rounds alternate the sides (A B, B A, ...) and the
/// figures are medians, so machine noise hits both.
public struct MixSuite: BenchSuite {
    public let name = "mix"
    public let summary = "offline mixing throughput, Backbeat vs raw OpenAL with the same voices (32, 64, max), alternating rounds"

    /// The suite.
    public init() {}

    /// One size's measurement.
    public struct Measurement: Sendable {
        /// Voices in the scene.
        public let voices: Int
        /// Backbeat's median throughput, × real time.
        public let backbeatXRealTime: Double
        /// Raw OpenAL's median throughput, × real time.
        public let rawXRealTime: Double
        /// Backbeat's throughput over raw OpenAL's.
        public var ratio: Double { backbeatXRealTime / rawXRealTime }
    }

    /// Renders `seconds` of a `voices`-voice scene `rounds` times on each side,
    /// alternating, and returns the medians.
    public func measure(voices: Int, seconds: Double, rounds: Int, log: (String) -> Void = { _ in }) throws -> Measurement {
        let scene = MixScene(voiceCount: voices)
        let frames = Int(seconds * Double(scene.sampleRate))
        let block = 4_800
        var samples = [Float](repeating: 0, count: block * 2)
        var backbeat: [Double] = [], raw: [Double] = []

        func runBackbeat() throws {
            let side = try scene.startBackbeat()
            defer { side.close() }
            let start = monotonicNanoseconds()
            var done = 0
            while done < frames {
                let n = min(block, frames - done)
                try side.render(frames: n, into: &samples)
                done += n
            }
            backbeat.append(seconds / (Double(monotonicNanoseconds() - start) / 1e9))
        }
        func runRaw() throws {
            let side = try scene.startRaw(chunk: scene.sampleRate / 200)
            defer { side.close() }
            let start = monotonicNanoseconds()
            var done = 0
            while done < frames {
                let n = min(block, frames - done)
                side.render(frames: n, into: &samples)
                done += n
            }
            raw.append(seconds / (Double(monotonicNanoseconds() - start) / 1e9))
        }
        for round in 0..<rounds {
            if round % 2 == 0 { try runBackbeat(); try runRaw() } else { try runRaw(); try runBackbeat() }
            log("\(voices) voices, round \(round + 1): Backbeat \(fmt(backbeat.last!))× real time, raw OpenAL \(fmt(raw.last!))×")
        }
        return Measurement(voices: voices, backbeatXRealTime: percentile(backbeat, 0.5), rawXRealTime: percentile(raw, 0.5))
    }

    /// The largest difference between Backbeat's and raw OpenAL's output for
    /// the same `voices`-voice scene over `frames` frames (0 when bit-identical).
    public func sampleDifference(voices: Int, frames: Int) throws -> (difference: Float, peak: Float) {
        let (a, b) = try MixScene(voiceCount: voices).renderBoth(frames: frames)
        return (zip(a, b).reduce(Float(0)) { max($0, abs($1.0 - $1.1)) }, a.reduce(Float(0)) { max($0, abs($1)) })
    }

    /// The most voices Backbeat makes audible at once on this machine's OpenAL.
    public func maximumVoices() throws -> (audible: Int, sources: Int) {
        let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
        defer { engine.shutdown() }
        return (engine.audibleVoiceCapacity, engine.voiceSourceCount)
    }

    public func run(_ options: BenchOptions, log: (String) -> Void) throws -> [Figure] {
        let seconds = options.quick ? 0.25 : 20
        let rounds = options.quick ? 2 : 7
        let (maxVoices, sources) = try maximumVoices()
        log("device: \(sources) voice sources, \(maxVoices) audible at once (the rest is the hand-off reserve)")
        var figures: [Figure] = []
        var worstDifference: Float = 0
        for (label, voices) in [("32", 32), ("64", 64), ("max", maxVoices)] {
            let (difference, peak) = try sampleDifference(voices: voices, frames: 96_000)
            worstDifference = max(worstDifference, difference)
            log("\(voices) voices: largest sample difference \(difference), output peak \(peak)")
            let m = try measure(voices: voices, seconds: seconds, rounds: rounds, log: log)
            log("\(voices) voices: Backbeat \(fmt(m.backbeatXRealTime))×, raw \(fmt(m.rawXRealTime))×, ratio \(fmt(m.ratio))")
            figures += [
                Figure(key: "ratio_\(label)", value: m.ratio, unit: "Backbeat's throughput over raw OpenAL's, \(voices) voices (goal ≥ 0.95)"),
                Figure(key: "xrealtime_\(label)", value: m.backbeatXRealTime, unit: "× real time, Backbeat, \(voices) voices, median of \(rounds)"),
                Figure(key: "raw_xrealtime_\(label)", value: m.rawXRealTime, unit: "× real time, raw OpenAL, \(voices) voices, median of \(rounds)"),
            ]
        }
        figures += [
            Figure(key: "voices_max", value: Double(maxVoices), unit: "voices at \"max\" (of \(sources) pool sources)"),
            Figure(key: "max_sample_difference", value: Double(worstDifference), unit: "largest |Backbeat − raw| sample over 2 s of each scene (0: bit-identical)"),
        ]
        return figures
    }

    private func fmt(_ v: Double) -> String { String(format: "%.2f", v) }
}
