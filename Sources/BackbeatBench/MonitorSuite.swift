import Backbeat
import BackbeatEngine
import BackbeatSupport
import BackbeatTelemetry
import BackbeatTesting
import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The `monitor` suite: what live telemetry costs a game.
///
/// - `snapshot_us_p99`: the time one snapshot takes under the engine lock
///   (``AudioEngine/telemetrySnapshotLocked()``, what the update step runs
///   for a monitor) with 10,000 moving emitters, 256 of them listed: the
///   99th percentile over 2,000 snapshots (200 with `--quick`), one per game
///   frame of the offline ``SpatialScene``, in microseconds of the thread's
///   CPU time (a busy machine preempting the thread does not count). Goal ≤ 200.
/// - `cpu_ratio_off`: the `device` suite's scene (64 looping voices and a
///   streamed song on a private PulseAudio null sink, in a child process)
///   with monitoring on (``AudioEngine/startMonitoring()``) and no client,
///   over the same scene with monitoring off: the process's CPU time (every
///   thread, `CLOCK_PROCESS_CPUTIME_ID`) in one-second segments of each
///   state, turned on and off in a mirrored order within each child
///   (``MonitorCycles``), a ratio per cycle; monitoring off is the
///   first, last and middle segments of each cycle. Goal ≤ 1.01.
/// - `cpu_ratio_on`: the same with one client attached, reading 10
///   snapshots a second (a thread of the child whose own CPU is left out, as
///   a monitor's process would be), over monitoring off. Goal ≤ 1.05.
/// - `cpu_ratio_null`: a second set of off segments over the first, measured
///   alike: the ratio noise alone makes, to read the others against.
///
/// The control is what the others are read against. It read above 1 in
/// most runs (1.02 to 1.10) with 20 cycles; with every segment off it read
/// 0.99, and over 48 cycles of the full method 0.99 too: no cost is left
/// behind by a client, and the readings were the noise of a short run. Two
/// possible tilts of the method are gone by construction: off held each
/// cycle's ends and the control its middle, and the two children ran their
/// clients at the same moments. Every other cycle now swaps the places,
/// and the two children run the orders opposite each other
/// (``MonitorCycles``); the default length is doubled.
///
/// Each ratio is the median over every cycle of every child of that cycle's
/// own ratio (``MonitorCycles/cycleRatios(_:)``), reported with the smallest
/// and largest; the log gives the quartiles and the ratio of the sums too.
///
/// The children are `backbeat bench device-scene --side monitor` (hidden), so
/// the suite runs from the `backbeat` executable only.
/// `BACKBEAT_BENCH_MONITOR_SECONDS` (default 240) is cut into `--rounds`
/// rounds, each of two children at once; `BACKBEAT_BENCH_MONITOR_SEGMENT_MS`
/// sets a segment's length (``MonitorCycles/segmentMicroseconds``).
/// `--only snapshot` measures only the snapshot time.
/// `BACKBEAT_BENCH_MONITOR_AGAINST`, the path of another build's `backbeat`,
/// runs that build as every round's second child: the figures are this
/// build's children's, and the log gives the other build's beside them.
package struct MonitorSuite: BenchSuite {
    package let name = "monitor"
    package let summary =
        "live telemetry's cost: one snapshot of 10,000 emitters under the lock; the device scene's CPU with monitoring on, with and without a client, over off"

    package init() {}

    /// The time of each of `count` snapshots of a scene of `emitters`
    /// moving emitters, built under the lock between game frames, in
    /// microseconds of the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`):
    /// what the snapshot costs the update thread, which a shared machine's
    /// other work, preempting the thread, does not add to as it does to the
    /// wall-clock time.
    ///
    /// - Parameters:
    ///   - emitters: the scene's emitters (looping voices).
    ///   - count: how many snapshots (one per game frame).
    /// - Returns: the times, and the voices the last snapshot listed and counted.
    package func snapshotTimes(emitters: Int, count: Int) throws -> (times: [Double], listed: Int, counted: Int) {
        let scene = SpatialScene(count: emitters)
        let side = try scene.startBackbeat()
        defer { side.close() }
        var samples = [Float](repeating: 0, count: scene.gameFrame * 2)
        var times: [Double] = []
        times.reserveCapacity(count)
        var last: TelemetrySnapshot?
        let engine = side.engine
        // A first snapshot ends the window since the engine opened.
        _ = engine.withLock(waking: false) { engine.telemetrySnapshotLocked() }
        for _ in 0..<count {
            side.prepare()
            try side.move()
            try engine.render(frames: scene.gameFrame, reusing: &samples)
            let (snapshot, nanoseconds) = engine.withLock(waking: false) {
                let start = threadCPUNanoseconds()
                let snapshot = engine.telemetrySnapshotLocked()
                return (snapshot, threadCPUNanoseconds() - start)
            }
            times.append(Double(nanoseconds) / 1e3)
            last = snapshot
        }
        let counts = last?.voiceCounts ?? .init()
        return (times, last?.voices.count ?? 0, counts.playing + counts.virtual + counts.dormant + counts.stopping)
    }

    package func run(_ options: BenchOptions, log: (String) -> Void) throws -> [Figure] {
        let quick = options.quick
        let (times, listed, counted) = try snapshotTimes(emitters: 10_000, count: quick ? 200 : 2_000)
        let sorted = times.sorted()
        let p99 = percentile(sorted, 0.99)
        log(
            "snapshot of \(counted) voices, \(listed) listed: median \(Self.format(percentile(sorted, 0.5))) µs, "
                + "p99 \(Self.format(p99)) µs, max \(Self.format(sorted.last ?? 0)) µs")
        var figures = [
            Figure(
                key: "snapshot_us_p99", value: p99,
                unit:
                    "µs of CPU under the engine lock for one snapshot, \(listed) of \(counted) voices listed, 99th percentile (goal ≤ 200)"
            )
        ]
        if options.only == "snapshot" { return figures }
        figures += try cpuRatios(options, log: log)
        return figures
    }

    /// The device scene's CPU with monitoring off, on without a client, and
    /// on with a client reading 10 snapshots a second, side by side.
    ///
    /// Each child plays the scene and turns monitoring off and on under it
    /// (``MonitorCycles``): a second in each state at a time, in a mirrored
    /// order, its own CPU counted in nanoseconds, so that the drift between
    /// runs and within one falls on every state alike. A round runs two
    /// children at once; a figure is the median over every cycle of every
    /// child of the state's CPU in that cycle over its monitoring-off
    /// segments' (off and control: ``MonitorCycles/cycleRatios(_:)``),
    /// reported with the smallest and largest cycle. `cpu_ratio_null` is the
    /// control segments over the off ones: what noise alone makes of a ratio.
    private func cpuRatios(_ options: BenchOptions, log: (String) -> Void) throws -> [Figure] {
        let executable = try selfPath()
        let total =
            options.quick
            ? 12 : Int(ProcessInfo.processInfo.environment["BACKBEAT_BENCH_MONITOR_SECONDS"] ?? "") ?? 240
        let rounds = options.quick ? 1 : options.rounds
        let seconds = max(12, total / rounds)
        let server = try PrivateSoundServer(sinks: ["Backbeat-Bench"])
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("backbeat-bench-monitor-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let song = directory.appendingPathComponent("song.ogg")
        try StreamSuite.writeSong(song, seconds: seconds + 5, seed: 3)
        var serverEnvironment = server.environment
        serverEnvironment["ALSOFT_DRIVERS"] = "pulse"
        serverEnvironment["ALSOFT_CONF"] = ""
        serverEnvironment["BACKBEAT_MONITOR"] = "0"
        for variable in [MonitorCycles.segmentVariable, MonitorCycles.actVariable] {
            if let value = ProcessInfo.processInfo.environment[variable] { serverEnvironment[variable] = value }
        }
        let environment = serverEnvironment

        // Another build's `backbeat` to run as every round's second child
        // (`BACKBEAT_BENCH_MONITOR_AGAINST`): a change measured against the
        // code before it side by side, in the same rounds of the same run.
        let against = ProcessInfo.processInfo.environment["BACKBEAT_BENCH_MONITOR_AGAINST"].flatMap {
            $0.isEmpty ? nil : $0
        }

        /// One child's segments, from `program`, its first cycle in the order `phase` names.
        @Sendable func child(_ program: String, phase: Int) throws -> MonitorCycles {
            var environment = environment
            environment[MonitorCycles.phaseVariable] = String(phase)
            let file = directory.appendingPathComponent("result-\(UUID().uuidString)")
            let run = try spawn(
                program,
                [
                    "bench", "device-scene", "--side", DeviceScene.Side.monitor.rawValue, "--seconds",
                    String(seconds), "--latency", "default", "--song", song.path, "--result", file.path,
                ],
                environment: environment)
            guard run.status == 0, let data = FileManager.default.contents(atPath: file.path),
                let cycles = MonitorCycles(line: String(decoding: data, as: UTF8.self))
            else { throw BenchError("device-scene --side monitor failed (status \(run.status))") }
            guard cycles.snapshots > 0 || !MonitorCycles.acted.contains(.client) else {
                throw BenchError("the monitor client read no snapshot")
            }
            return cycles
        }

        // The children's segment length, which `BACKBEAT_BENCH_MONITOR_SEGMENT_MS` passes on to them.
        let segmentSeconds = Double(MonitorCycles.segmentMicroseconds) / 1e6
        log("\(rounds) rounds of \(seconds) s, two children at once, each cycling off, on, with a client, control")
        var children: [MonitorCycles] = []
        var others: [MonitorCycles] = []
        for round in 1...rounds {
            let second = against ?? executable
            // Opposite orders: one child's client never runs while the other's does.
            let first: @Sendable () throws -> MonitorCycles = { try child(executable, phase: 0) }
            let other: @Sendable () throws -> MonitorCycles = { try child(second, phase: 1) }
            let pair = try Self.concurrently([first, other])
            if against != nil {
                children.append(pair[0])
                others.append(pair[1])
            } else {
                children += pair
            }
            let described = pair.map { cycles in
                let off = cycles.cpu[MonitorCycles.State.off.rawValue]
                let perSecond = off.reduce(0, +) / Double(off.count) / segmentSeconds * 1_000
                return "off \(Self.format(perSecond)) ms CPU/s, on \(Self.ratio(cycles.ratio(.on), 1)), "
                    + "with a client \(Self.ratio(cycles.ratio(.client), 1)) (\(cycles.snapshots) lines read), "
                    + "control \(Self.ratio(cycles.ratio(.control), 1))"
            }
            log("round \(round): " + described.joined(separator: "; "))
        }
        let offPerSecond = children.map { cycles in
            let off = cycles.cpu[MonitorCycles.State.off.rawValue]
            return off.reduce(0, +) / Double(off.count) / segmentSeconds
        }
        // Each figure is the median of every cycle's own ratio, with the
        // smallest and largest; the log adds the quartiles and the ratio of
        // the sums (what the figures were before), so that the spread is seen.
        let perCycle = MonitorCycles.State.allCases.map { state in children.flatMap { $0.cycleRatios(state) } }
        Self.logSpread(of: children, as: "this build", log: log)
        if let against { Self.logSpread(of: others, as: against, log: log) }
        return [
            Figure(
                key: "cpu_ratio_off", rounds: perCycle[MonitorCycles.State.on.rawValue],
                unit:
                    "CPU time of the device scene with monitoring on and no client over monitoring off, same process, median of the cycles (goal ≤ 1.01)"
            ),
            Figure(
                key: "cpu_ratio_on", rounds: perCycle[MonitorCycles.State.client.rawValue],
                unit:
                    "CPU time of the device scene with one client reading 10 snapshots/s over monitoring off, median of the cycles (goal ≤ 1.05)"
            ),
            Figure(
                key: "cpu_ratio_null", rounds: perCycle[MonitorCycles.State.control.rawValue],
                unit:
                    "CPU time of monitoring off over monitoring off, measured alike, median of the cycles: the noise alone (ideal 1)"
            ),
            Figure(key: "cpu_s_off", rounds: offPerSecond, unit: "s of CPU per second of the scene, monitoring off"),
        ]
    }

    /// Logs each state's median cycle ratio over `children`, its quartiles
    /// and the ratio of the sums.
    private static func logSpread(of children: [MonitorCycles], as name: String, log: (String) -> Void) {
        for (state, label) in [(MonitorCycles.State.on, "on"), (.client, "with a client"), (.control, "control")] {
            let sorted = children.flatMap { $0.cycleRatios(state) }.sorted()
            log(
                "\(name), \(label): median of \(sorted.count) cycles \(ratio(median(sorted), 1)), "
                    + "quartiles \(ratio(percentile(sorted, 0.25), 1))–\(ratio(percentile(sorted, 0.75), 1)), "
                    + "ratio of the sums \(ratio(MonitorCycles.ratio(state, over: children), 1))")
        }
    }

    /// Runs every body at once, each on a thread of its own, and returns their results in order.
    private static func concurrently<T: Sendable>(_ bodies: [@Sendable () throws -> T]) throws -> [T] {
        let results = LockedValueBox<[Int: Result<T, any Error>]>([:])
        let done = DispatchGroup()
        for (index, body) in bodies.enumerated() {
            done.enter()
            Thread {
                let result = Result { try body() }
                results.withLockedValue { $0[index] = result }
                done.leave()
            }.start()
        }
        done.wait()
        let all = results.withLockedValue { $0 }
        return try bodies.indices.map { try all[$0]!.get() }
    }

    private static func format(_ value: Double) -> String { String(format: "%.2f", value) }
    private static func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.3f", a / b) }
}
