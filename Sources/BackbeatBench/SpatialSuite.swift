import Backbeat
import BackbeatEngine
import Foundation

/// 3D scenes with virtual voices: Backbeat against raw OpenAL playing every
/// emitter on a source of its own, side by side in one run, offline.
///
/// - `ratio_vs_raw`: a 255-emitter ``SpatialScene`` (about 50 audible at any
///   time), every emitter moved every 20 ms game frame; Backbeat's throughput
///   over raw OpenAL's, which mixes all 255 sources.
/// - `error_db`: the RMS of the difference of the two renders relative to the
///   RMS of raw OpenAL's render, in dB: what dropping the inaudible voices costs.
/// - `hrtf_ratio_vs_raw`: the same with HRTF on, on both sides.
/// - `xrealtime_10k`: 10,000 emitters (about 50 audible) through Backbeat, × real time.
/// - `raw64_xrealtime`: the reference `xrealtime_10k`'s goal was set against,
///   raw OpenAL moving 64 sources, measured between its rounds.
/// - `update_us_p99`: the 99th percentile of the time a game frame takes to move
///   1,000 emitters (one batch of 1,000 position changes), in microseconds.
///
/// Both sides move the emitters and render in the same game frames, and the
/// throughput counts both (moving is part of what a game pays); working out
/// the emitters' paths is the game's own work and is not timed.
package struct SpatialSuite: BenchSuite {
    package let name = "spatial"
    package let summary =
        "3D scenes with virtual voices: 255 moving emitters vs raw OpenAL (plain and HRTF), 10,000 emitters, moving cost"

    /// The suite.
    package init() {}

    /// Throughput of both sides of a scene, round by round.
    package struct Measurement: Sendable {
        /// Backbeat's throughput in each round, × real time.
        package let backbeatRounds: [Double]
        /// Raw OpenAL's throughput in each round, × real time.
        package let rawRounds: [Double]
        /// Backbeat's throughput over raw OpenAL's, in each round.
        package var ratioRounds: [Double] { Rounds.ratios(backbeatRounds, rawRounds) }
    }

    /// Renders `seconds` of `scene` on both sides in each of `rounds` interleaved rounds.
    package func measure(
        _ scene: SpatialScene, hrtf: Bool, seconds: Double, rounds: Int, log: (String) -> Void = { _ in }
    ) throws -> Measurement {
        let values = try interleaved(
            backbeat: scene, raw: scene, hrtf: hrtf, frames: gameFrames(seconds, scene), rounds: rounds
        ) { round, v in
            log("\(hrtf ? "HRTF, " : "")round \(round): Backbeat \(fmt(v[0]))× real time, raw OpenAL \(fmt(v[1]))×")
        }
        return Measurement(backbeatRounds: values.backbeat, rawRounds: values.raw)
    }

    /// Throughput, × real time, of `frames` of `backbeat` rendered through
    /// Backbeat and of `raw` through raw OpenAL in 5 ms calls, each side on a
    /// fresh device, in `rounds` interleaved rounds.
    private func interleaved(
        backbeat: SpatialScene, raw: SpatialScene, hrtf: Bool, frames: Int, rounds: Int,
        log: (Int, [Double]) -> Void = { _, _ in }
    ) throws -> (backbeat: [Double], raw: [Double]) {
        var samples = [Float](repeating: 0, count: frames * 2)
        func realTime(_ nanoseconds: UInt64, at sampleRate: Int) -> Double {
            Double(frames) / Double(sampleRate) / (Double(nanoseconds) / 1e9)
        }
        func runBackbeat() throws -> Double {
            let side = try backbeat.startBackbeat(hrtf: hrtf)
            defer { side.close() }
            return realTime(try side.render(frames: frames, into: &samples), at: backbeat.sampleRate)
        }
        func runRaw() throws -> Double {
            let side = try raw.startRaw(hrtf: hrtf, chunk: raw.sampleRate / 200)
            defer { side.close() }
            return realTime(side.render(frames: frames, into: &samples), at: raw.sampleRate)
        }
        let values = try Rounds.interleaved(rounds, sides: [runBackbeat, runRaw], log: log)
        return (values[0], values[1])
    }

    /// The RMS of the difference between Backbeat's and raw OpenAL's renders
    /// of `seconds` of `scene`, relative to raw OpenAL's RMS, in dB; and raw's RMS.
    package func errorDecibels(_ scene: SpatialScene, seconds: Double) throws -> (error: Double, rms: Double) {
        let frames = gameFrames(seconds, scene)
        var a = [Float](repeating: 0, count: frames * 2)
        var b = a
        let backbeat = try scene.startBackbeat()
        defer { backbeat.close() }
        let raw = try scene.startRaw(chunk: backbeat.engine.updateInterval)
        defer { raw.close() }
        try backbeat.render(frames: frames, into: &a)
        raw.render(frames: frames, into: &b)
        var difference = 0.0
        var signal = 0.0
        for i in a.indices {
            let d = Double(a[i]) - Double(b[i])
            difference += d * d
            signal += Double(b[i]) * Double(b[i])
        }
        let rms = (signal / Double(max(1, a.count))).squareRoot()
        guard signal > 0 else { throw BenchError("the spatial scene rendered silence") }
        return (10 * log10(max(difference, 1e-30) / signal), rms)
    }

    /// Backbeat's throughput rendering `seconds` of a `count`-emitter scene,
    /// × real time, in each round; and, between its rounds, the goal's
    /// reference: raw OpenAL moving `referenceSources` sources of the same
    /// sounds on the same paths, in 5 ms calls (each a source of its own, all mixed).
    package func xRealTime(count: Int, referenceSources: Int = 64, seconds: Double, rounds: Int) throws -> (
        backbeat: [Double], reference: [Double]
    ) {
        let scene = SpatialScene(count: count)
        let values = try interleaved(
            backbeat: scene, raw: SpatialScene(count: referenceSources), hrtf: false,
            frames: gameFrames(seconds, scene), rounds: rounds)
        return (values.backbeat, values.raw)
    }

    /// How often, per second of audio, voices of a `count`-emitter scene went
    /// dormant, woke, got a source and gave one up (after the first game
    /// frame, where every emitter starts): the churn the audibility threshold causes.
    package func transitions(count: Int, seconds: Double) throws -> (
        sleeps: Double, wakes: Double, realized: Double, virtualized: Double, warm: Double
    ) {
        let scene = SpatialScene(count: count)
        let side = try scene.startBackbeat()
        defer { side.close() }
        final class Tally: @unchecked Sendable { var realized = 0, virtualized = 0 }
        let tally = Tally()
        var samples = [Float](repeating: 0, count: scene.gameFrame * 2)
        try side.render(frames: scene.gameFrame, into: &samples)
        let before = side.engine.dormantTransitions
        let warmBefore = side.engine.warmSourceStarts
        let token = side.engine.observe { event in
            switch event {
            case .voiceRealized: tally.realized += 1
            case .voiceVirtualized: tally.virtualized += 1
            default: break
            }
        }
        defer { token.cancel() }
        let frames = gameFrames(seconds, scene)
        samples = [Float](repeating: 0, count: frames * 2)
        try side.render(frames: frames, into: &samples)
        let after = side.engine.dormantTransitions
        let span = Double(frames) / Double(scene.sampleRate)
        return (
            Double(after.sleeps - before.sleeps) / span, Double(after.wakes - before.wakes) / span,
            Double(tally.realized) / span, Double(tally.virtualized) / span,
            Double(side.engine.warmSourceStarts - warmBefore) / span
        )
    }

    /// The time of each of `count` game frames moving a 1,000-emitter scene's
    /// emitters (one batch of 1,000 position changes), in microseconds, with
    /// one update period rendered between frames.
    package func moveTimes(emitters: Int, frames count: Int) throws -> [Double] {
        let scene = SpatialScene(count: emitters)
        let side = try scene.startBackbeat()
        defer { side.close() }
        var samples = [Float](repeating: 0, count: scene.gameFrame * 2)
        var times: [Double] = []
        times.reserveCapacity(count)
        for _ in 0..<count {
            side.prepare()
            let start = monotonicNanoseconds()
            try side.move()
            times.append(Double(monotonicNanoseconds() - start) / 1e3)
            try side.engine.render(frames: scene.gameFrame, reusing: &samples)
        }
        return times
    }

    private func logTransitions(count: Int, seconds: Double, log: (String) -> Void) {
        guard let t = try? transitions(count: count, seconds: seconds) else { return }
        log(
            "\(count) emitters, per second: \(fmt(t.wakes)) wakes, \(fmt(t.sleeps)) sleeps, \(fmt(t.realized)) sources taken, \(fmt(t.virtualized)) given up, \(fmt(t.warm)) taken back warm"
        )
    }

    package func run(_ options: BenchOptions, log: (String) -> Void) throws -> [Figure] {
        let quick = options.quick
        let seconds = quick ? 0.2 : 10
        let rounds = options.rounds
        let big = quick ? 500 : 10_000
        if options.only == "xrealtime_10k" {
            // Only the large scene (for profiling it), with its reference.
            let tenK = try xRealTime(count: big, seconds: seconds, rounds: rounds)
            log("\(big) emitters: \(tenK.backbeat.map(fmt).joined(separator: ", "))× real time")
            log("raw OpenAL, 64 sources: \(tenK.reference.map(fmt).joined(separator: ", "))× real time")
            logTransitions(count: big, seconds: seconds, log: log)
            return [
                Figure(
                    key: "xrealtime_10k", rounds: tenK.backbeat, unit: "× real time, Backbeat, \(big) moving emitters"),
                Figure(key: "raw64_xrealtime", rounds: tenK.reference, unit: Self.referenceUnit),
            ]
        }
        let scene = SpatialScene(count: quick ? 40 : 255, audibleTarget: quick ? 8 : 50)
        let audible = stride(from: 0.0, to: 10, by: 0.5).map { scene.audibleCount(at: $0) }
        log(
            "\(scene.emitters.count) emitters, audible at once: \(audible.min()!)–\(audible.max()!) (mean \(fmt(Double(audible.reduce(0, +)) / Double(audible.count))))"
        )
        let (error, rms) = try errorDecibels(scene, seconds: quick ? 0.2 : 20)
        log("difference from raw OpenAL: \(fmt(error)) dB of the scene's RMS (\(fmt(20 * log10(rms))) dBFS)")
        let plain = try measure(scene, hrtf: false, seconds: seconds, rounds: rounds, log: log)
        let hrtf = try measure(scene, hrtf: true, seconds: seconds, rounds: rounds, log: log)
        let tenK = try xRealTime(count: big, seconds: seconds, rounds: rounds)
        log("\(big) emitters: \(tenK.backbeat.map(fmt).joined(separator: ", "))× real time")
        log("raw OpenAL, 64 sources: \(tenK.reference.map(fmt).joined(separator: ", "))× real time")
        logTransitions(count: big, seconds: seconds, log: log)
        let moves = try moveTimes(emitters: quick ? 100 : 1_000, frames: quick ? 20 : 2_000).sorted()
        let p99 = percentile(moves, 0.99)
        log("moving \(quick ? 100 : 1_000) emitters: median \(fmt(moves[moves.count / 2])) µs, p99 \(fmt(p99)) µs")
        return [
            Figure(
                key: "ratio_vs_raw", rounds: plain.ratioRounds,
                unit:
                    "Backbeat's throughput over raw OpenAL's, \(scene.emitters.count) moving emitters (~50 audible), median of \(rounds) rounds (goal ≥ 2.0)"
            ),
            Figure(
                key: "xrealtime", rounds: plain.backbeatRounds,
                unit: "× real time, Backbeat, \(scene.emitters.count) moving emitters, median of \(rounds) rounds"),
            Figure(
                key: "raw_xrealtime", rounds: plain.rawRounds,
                unit: "× real time, raw OpenAL, \(scene.emitters.count) moving sources, median of \(rounds) rounds"),
            Figure(
                key: "error_db", value: error,
                unit: "RMS of Backbeat's render minus raw OpenAL's, relative to the scene's RMS, dB (goal ≤ -40)"),
            Figure(
                key: "hrtf_ratio_vs_raw", rounds: hrtf.ratioRounds,
                unit: "the same with HRTF on both sides, median of \(rounds) rounds (goal ≥ 3.0)"),
            Figure(
                key: "hrtf_raw_xrealtime", rounds: hrtf.rawRounds,
                unit: "× real time, raw OpenAL with HRTF, \(scene.emitters.count) moving sources"),
            Figure(
                key: "xrealtime_10k", rounds: tenK.backbeat,
                unit:
                    "× real time, Backbeat, \(big) moving emitters (~50 audible), median of \(rounds) rounds (goal ≥ 150)"
            ),
            Figure(key: "raw64_xrealtime", rounds: tenK.reference, unit: Self.referenceUnit),
            Figure(
                key: "update_us_p99", value: p99,
                unit: "µs, 99th percentile of one game frame moving \(quick ? 100 : 1_000) emitters (one batch)"),
        ]
    }

    static let referenceUnit =
        "× real time, raw OpenAL moving 64 sources in 5 ms calls (xrealtime_10k's reference), between its rounds"

    /// `seconds` rounded up to whole game frames, in frames.
    private func gameFrames(_ seconds: Double, _ scene: SpatialScene) -> Int {
        let frames = Int((seconds * Double(scene.sampleRate)).rounded(.up))
        return max(1, (frames + scene.gameFrame - 1) / scene.gameFrame) * scene.gameFrame
    }

    private func fmt(_ v: Double) -> String { String(format: "%.2f", v) }
}
