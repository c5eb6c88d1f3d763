import Backbeat
import BackbeatEffects
import BackbeatEngine
import Foundation

/// What recording a session (``AudioEngine/startCapture(to:)``) costs the
/// game, each figure measured with capture on and off side by side in one run:
///
/// - `trigger_overhead_us`: the 99th percentile of one `SoundEffect.play()`
///   on an engine that captures, minus the same on one that does not, the
///   two timed in alternating blocks, in microseconds (goal ≤ 1.0).
/// - `xrealtime_ratio`: the `spatial` suite's 255-emitter scene (every
///   emitter moved every 20 ms game frame), its speed with capture on over
///   its speed with capture off, in interleaved rounds (goal ≥ 0.95).
/// - `bytes_per_min_1000`: the capture file's size per minute of a session
///   moving 1,000 emitters 50 times a second.
package struct CaptureSuite: BenchSuite {
    package let name = "capture"
    package let summary =
        "cost of recording a session: play() with capture on minus off (p99), the 255-emitter scene's speed on over off, bytes per minute for 1,000 moving emitters"

    /// The suite.
    package init() {}

    /// A capture file in the temporary folder, removed by `body`'s end.
    private func withCaptureFile<T>(_ name: String, _ body: (URL) throws -> T) rethrows -> T {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("backbeat-bench-\(name)-\(ProcessInfo.processInfo.processIdentifier).bbcap")
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url)
    }

    /// `play()` costs on an engine without capture and on one with, in
    /// microseconds, in call order; timed in alternating blocks of `block`
    /// calls, every fourth call rendering one update period.
    package func triggerCosts(triggers: Int, block: Int = 500) throws -> (off: [Double], on: [Double]) {
        try withCaptureFile("trigger") { url in
            let plain = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
            defer { plain.shutdown() }
            let captured = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
            defer { captured.shutdown() }
            let capture = try captured.startCapture(to: url)
            defer { try? capture.stop() }
            let click = TriggerSuite.click()
            let sides = try [plain, captured].map { engine in
                (engine, try SoundEffect(buffer: click, name: "click", engine: engine))
            }
            var costs: [[Double]] = [[], []]
            var scratch = [Float](repeating: 0, count: plain.updateInterval * 2)
            func run(_ side: Int, _ count: Int, record: Bool) throws {
                let (engine, sound) = sides[side]
                for i in 0..<count {
                    let pan = TriggerSuite.pans[i % TriggerSuite.pans.count]
                    let start = monotonicNanoseconds()
                    sound.play(volume: 0.5, pan: pan)
                    let end = monotonicNanoseconds()
                    if record { costs[side].append(Double(end - start) / 1e3) }
                    if i % 4 == 3 { try engine.render(frames: engine.updateInterval, reusing: &scratch) }
                }
            }
            // Warm both up (allocations, the cache, the capture's first records) before timing.
            try run(0, min(block, 500), record: false)
            try run(1, min(block, 500), record: false)
            var done = 0
            var round = 0
            while done < triggers {
                let n = min(block, triggers - done)
                // The sides take turns at going first.
                for side in round % 2 == 0 ? [0, 1] : [1, 0] { try run(side, n, record: true) }
                done += n
                round += 1
            }
            return (costs[0], costs[1])
        }
    }

    /// The 255-emitter scene's throughput with capture off and on, × real
    /// time, in `rounds` interleaved rounds, each side on a fresh engine.
    package func sceneSpeeds(seconds: Double, rounds: Int, count: Int = 255) throws -> (off: [Double], on: [Double]) {
        let scene = SpatialScene(count: count, audibleTarget: 50)
        let frames = max(1, Int(seconds * Double(scene.sampleRate)) / scene.gameFrame) * scene.gameFrame
        var samples = [Float](repeating: 0, count: frames * 2)
        func speed(_ nanoseconds: UInt64) -> Double {
            Double(frames) / Double(scene.sampleRate) / (Double(max(1, nanoseconds)) / 1e9)
        }
        func off() throws -> Double {
            let side = try scene.startBackbeat()
            defer { side.close() }
            return speed(try side.render(frames: frames, into: &samples))
        }
        func on() throws -> Double {
            try withCaptureFile("scene") { url in
                let side = try scene.startBackbeat()
                defer { side.close() }
                let capture = try side.engine.startCapture(to: url)
                defer { try? capture.stop() }
                return speed(try side.render(frames: frames, into: &samples))
            }
        }
        let values = try Rounds.interleaved(rounds, sides: [off, on])
        return (values[0], values[1])
    }

    /// The capture's size per minute of engine time for `count` emitters moved every 20 ms game frame.
    package func bytesPerMinute(count: Int, seconds: Double) throws -> Double {
        try withCaptureFile("bytes") { url in
            let scene = SpatialScene(count: count)
            let frames = max(1, Int(seconds * Double(scene.sampleRate)) / scene.gameFrame) * scene.gameFrame
            var samples = [Float](repeating: 0, count: frames * 2)
            let side = try scene.startBackbeat()
            defer { side.close() }
            let capture = try side.engine.startCapture(to: url)
            try side.render(frames: frames, into: &samples)
            try capture.stop()
            let bytes = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
            return Double(bytes) / (Double(frames) / Double(scene.sampleRate)) * 60
        }
    }

    package func run(_ options: BenchOptions, log: (String) -> Void) throws -> [Figure] {
        let quick = options.quick
        let rounds = options.rounds
        // `--only xrealtime_ratio`: the scene alone, `--seconds` long if
        // given, to profile what capture costs it.
        if options.only == "xrealtime_ratio" {
            return [try sceneFigure(seconds: options.seconds ?? (quick ? 0.2 : 10), rounds: rounds, log: log)]
        }
        let triggers = quick ? 2_000 : 40_000
        let costs = try triggerCosts(triggers: triggers)
        let count = min(costs.off.count, costs.on.count)
        let cuts = max(1, min(rounds, count))
        let overheads = (0..<cuts).map { r in
            let range = (r * count / cuts)..<((r + 1) * count / cuts)
            return percentile(costs.on[range].sorted(), 0.99) - percentile(costs.off[range].sorted(), 0.99)
        }
        log(
            "play(): p99 \(fmt(percentile(costs.off.sorted(), 0.99))) µs without capture, \(fmt(percentile(costs.on.sorted(), 0.99))) µs with"
        )
        let scene = try sceneFigure(seconds: quick ? 0.2 : 10, rounds: rounds, log: log)
        let bytes = try bytesPerMinute(count: 1_000, seconds: quick ? 1 : 10)
        log("1,000 emitters moved 50 times a second: \(fmt(bytes / 1_048_576)) MiB per minute")
        return [
            Figure(
                key: "trigger_overhead_us", rounds: overheads,
                unit:
                    "µs, p99 of one play() with capture on minus without, side by side, median of \(cuts) rounds (goal ≤ 1.0)"
            ),
            scene,
            Figure(
                key: "bytes_per_min_1000", value: bytes,
                unit: "bytes of capture per minute, 1,000 emitters moved 50 times a second"),
        ]
    }

    /// `xrealtime_ratio`: the scene's speed with capture on over off, `seconds` of audio a side and round.
    private func sceneFigure(seconds: Double, rounds: Int, log: (String) -> Void) throws -> Figure {
        let speeds = try sceneSpeeds(seconds: seconds, rounds: rounds)
        let ratios = Rounds.ratios(speeds.on, speeds.off)
        for (i, ratio) in ratios.enumerated() {
            log(
                "round \(i + 1): \(fmt(speeds.off[i]))× real time without capture, \(fmt(speeds.on[i]))× with (\(fmt(ratio)))"
            )
        }
        return Figure(
            key: "xrealtime_ratio", rounds: ratios,
            unit:
                "the 255-emitter spatial scene's speed with capture on over off, median of \(rounds) rounds (goal ≥ 0.95)"
        )
    }

    private func fmt(_ v: Double) -> String { String(format: "%.2f", v) }
}
