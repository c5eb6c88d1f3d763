import Backbeat
import BackbeatEngine
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
///   frame of the offline ``SpatialScene``, in microseconds. Goal ≤ 200.
/// - `cpu_ratio_off`: the `device` suite's scene (64 looping voices and a
///   streamed song on a private PulseAudio null sink, each run a child
///   process) with monitoring on (`BACKBEAT_MONITOR=1`) and no client, over
///   the same scene with monitoring off: CPU time (user + system, from
///   `wait4`) of the children, the median of interleaved rounds. Goal ≤ 1.01.
/// - `cpu_ratio_on`: the same with one client attached, reading 10
///   snapshots a second (this process reads them; its CPU is not counted),
///   over monitoring off. Goal ≤ 1.05.
///
/// The children are `backbeat bench device-scene` (hidden), so the suite runs
/// from the `backbeat` executable only. Each round lasts
/// `BACKBEAT_BENCH_MONITOR_SECONDS` / rounds of real time on each side
/// (default 60 s in all). `--only snapshot` measures only the snapshot time.
package struct MonitorSuite: BenchSuite {
    package let name = "monitor"
    package let summary =
        "live telemetry's cost: one snapshot of 10,000 emitters under the lock; the device scene's CPU with monitoring on, with and without a client, over off"

    package init() {}

    /// The time of each of `count` snapshots of a scene of `emitters`
    /// moving emitters, built under the lock between game frames, in microseconds.
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
                let start = monotonicNanoseconds()
                let snapshot = engine.telemetrySnapshotLocked()
                return (snapshot, monotonicNanoseconds() - start)
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
                    "µs under the engine lock for one snapshot, \(listed) of \(counted) voices listed, 99th percentile (goal ≤ 200)"
            )
        ]
        if options.only == "snapshot" { return figures }
        figures += try cpuRatios(options, log: log)
        return figures
    }

    /// The device scene's CPU with monitoring off, on without a client, and
    /// on with a client reading 10 snapshots a second, side by side in interleaved rounds.
    private func cpuRatios(_ options: BenchOptions, log: (String) -> Void) throws -> [Figure] {
        let executable = try selfPath()
        let total =
            options.quick
            ? 6 : Int(ProcessInfo.processInfo.environment["BACKBEAT_BENCH_MONITOR_SECONDS"] ?? "") ?? 60
        let seconds = max(2, total / options.rounds)
        let server = try PrivateSoundServer(sinks: ["Backbeat-Bench"])
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("backbeat-bench-monitor-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let song = directory.appendingPathComponent("song.ogg")
        try StreamSuite.writeSong(song, seconds: seconds + 5, seed: 3)
        var environment = server.environment
        environment["ALSOFT_DRIVERS"] = "pulse"
        environment["ALSOFT_CONF"] = ""

        var snapshotsRead: [Int] = []
        /// One child's CPU seconds: monitoring off, on, or on with a client reading.
        func child(monitoring: Bool, client: Bool) throws -> Double {
            var childEnvironment = environment
            childEnvironment["BACKBEAT_MONITOR"] = monitoring ? "1" : "0"
            let file = directory.appendingPathComponent("result-\(UUID().uuidString)")
            let reader = client ? MonitorReader() : nil
            let run = try spawn(
                executable,
                [
                    "bench", "device-scene", "--side", DeviceScene.Side.backbeat.rawValue, "--seconds",
                    String(seconds), "--latency", "default", "--song", song.path, "--result", file.path,
                ],
                environment: childEnvironment
            ) { pid in
                var all = ProcessInfo.processInfo.environment
                all.merge(childEnvironment) { $1 }
                reader?.start(socket: TelemetryEndpoint.socketPath(pid: pid, environment: all))
            }
            if let reader {
                let read = reader.finish()
                guard read.error == nil, read.snapshots > 0 else {
                    throw BenchError("the monitor client read no snapshot: \(read.error ?? "nothing came")")
                }
                snapshotsRead.append(read.snapshots)
            }
            guard run.status == 0 else {
                throw BenchError(
                    "device-scene with monitoring \(monitoring ? "on" : "off") failed (status \(run.status))")
            }
            return Self.seconds(run.usage.ru_utime) + Self.seconds(run.usage.ru_stime)
        }

        log("\(options.rounds) rounds of \(seconds) s on each side (off, on, on with a client), interleaved")
        let cpu = try Rounds.interleaved(
            options.rounds,
            sides: [
                { try child(monitoring: false, client: false) },
                { try child(monitoring: true, client: false) },
                { try child(monitoring: true, client: true) },
            ]
        ) { round, values in
            log(
                "round \(round): off \(Self.format(values[0])) s CPU, on \(Self.format(values[1])) s "
                    + "(\(Self.ratio(values[1], values[0]))), with a client \(Self.format(values[2])) s "
                    + "(\(Self.ratio(values[2], values[0])), \(snapshotsRead.last ?? 0) snapshots read)")
        }
        return [
            Figure(
                key: "cpu_ratio_off", rounds: Rounds.ratios(cpu[1], cpu[0]),
                unit:
                    "CPU time of the device scene with monitoring on and no client over monitoring off, same server (goal ≤ 1.01)"
            ),
            Figure(
                key: "cpu_ratio_on", rounds: Rounds.ratios(cpu[2], cpu[0]),
                unit:
                    "CPU time of the device scene with one client reading 10 snapshots/s over monitoring off (goal ≤ 1.05)"
            ),
            Figure(key: "cpu_s_off", rounds: cpu[0], unit: "s of CPU per \(seconds) s round, monitoring off"),
        ]
    }

    private static func format(_ value: Double) -> String { String(format: "%.2f", value) }
    private static func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.3f", a / b) }
    private static func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
}

/// A monitor client on a thread of its own: waits for a game's socket,
/// asks for 10 snapshots a second, and reads every line until the game
/// closes the connection (it exits).
final class MonitorReader: @unchecked Sendable {
    // @unchecked: `snapshots` and `error` are written by the reading thread
    // before it signals `done`, and read only after `finish()` waited for it.
    private var snapshots = 0
    private var error: String?
    private let done = DispatchSemaphore(value: 0)

    /// Starts reading from the socket at `socket` once it appears (within 10 s).
    func start(socket: String) {
        Thread { [self] in
            defer { done.signal() }
            var waited = 0
            while access(socket, F_OK) != 0 {
                guard waited < 1_000 else {
                    error = "no socket at \(socket) after 10 s"
                    return
                }
                usleep(10_000)
                waited += 1
            }
            do {
                let client = try TelemetryClient(path: socket)
                defer { client.close() }
                try client.send(TelemetryCommand(action: .rate(TelemetryProtocol.defaultRate)))
                while let line = try client.nextRawLine(timeout: 10) {
                    if case .snapshot = TelemetryLine.decode(line) { snapshots += 1 }
                }
            } catch {
                // The game closing the socket as it exits ends the read; anything before is an error.
                if snapshots == 0 { self.error = "\(error)" }
            }
        }.start()
    }

    /// Waits for the reading thread to end; returns the snapshots it read, and its error if any.
    func finish() -> (snapshots: Int, error: String?) {
        done.wait()
        return (snapshots, error)
    }
}
