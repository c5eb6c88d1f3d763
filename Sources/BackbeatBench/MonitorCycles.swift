import BackbeatEngine
import BackbeatTelemetry
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The `monitor` suite's child: one process plays the device scene and turns
/// monitoring off and on under it, so that each state is measured side by
/// side with the others in the same process, on the same sound-server
/// stream, a second at a time.
///
/// Two runs of the same scene differ by several percent in CPU (how the
/// sound server's stream happens to be clocked, what else the machine
/// does), and so do two seconds of one run: far more than the 1% the suite
/// measures. Short segments in a mirrored order (off, on, with a client,
/// off again as the control; then the same backwards) make slow drift fall
/// on every state alike; the suite sums many of them.
///
/// Every other cycle swaps the states' places (control, with a client, on,
/// off; then backwards), so that over two cycles off and control, and on
/// and with a client, each take the same places in the cycle: a place's
/// own cost (the first segment after a cycle's end, the middle ones after
/// the most changes) weighs on the states alike. The control still comes
/// right after the client in both orders: a cost a client left behind once
/// it had gone would show in `cpu_ratio_null`. The suite's two children
/// run the two orders opposite each other (``phase``), so one child's
/// client never runs at the same moment as the other's.
package struct MonitorCycles: Sendable {
    /// The states a segment measures.
    package enum State: Int, Sendable, CaseIterable {
        /// Monitoring off.
        case off
        /// Monitoring on, no client.
        case on
        /// Monitoring on, a client reading 10 snapshots a second.
        case client
        /// Monitoring off again: against `off`, what noise alone makes of a ratio.
        case control
    }

    /// The process's CPU seconds in each segment of each state, in the order measured.
    package var cpu: [[Double]]
    /// Snapshots the client read in all.
    package var snapshots: Int

    /// One line: a comma-separated list per state, then the snapshots read.
    var line: String {
        cpu.map { $0.map { String($0) }.joined(separator: ",") }.joined(separator: " ") + " \(snapshots)"
    }

    init(cpu: [[Double]], snapshots: Int) {
        self.cpu = cpu
        self.snapshots = snapshots
    }

    /// Reads a child's line back; nil unless every state has as many segments, and at least one.
    package init?(line: String) {
        let parts = line.split(separator: " ")
        guard parts.count == State.allCases.count + 1, let snapshots = Int(parts[State.allCases.count]) else {
            return nil
        }
        let cpu = parts.prefix(State.allCases.count).map { $0.split(separator: ",").compactMap { Double($0) } }
        guard let first = cpu.first, !first.isEmpty, cpu.allSatisfy({ $0.count == first.count }) else { return nil }
        self.init(cpu: cpu, snapshots: snapshots)
    }

    /// This run's ``ratio(_:over:)``.
    package func ratio(_ state: State) -> Double {
        Self.ratio(state, over: [self])
    }

    /// A state's CPU over monitoring off's, summed over every segment of
    /// `children`. Monitoring off is both `off` and `control`: their
    /// segments sit at both ends and in the middle of each cycle, around the
    /// others, so drift within a cycle weighs on them as on the states
    /// measured, and there are twice as many. `control` itself is measured
    /// over `off` alone: what noise makes of a ratio.
    ///
    /// - Parameters:
    ///   - state: the state measured.
    ///   - children: the runs.
    package static func ratio(_ state: State, over children: [MonitorCycles]) -> Double {
        let sum = { (state: State) in children.reduce(0) { $0 + $1.cpu[state.rawValue].reduce(0, +) } }
        if state == .control || state == .off { return sum(state) / sum(.off) }
        return sum(state) / ((sum(.off) + sum(.control)) / 2)
    }

    /// Each cycle's own ``ratio(_:over:)``: a cycle measures every state
    /// twice, side by side within about nine seconds, so its ratio is a
    /// paired sample that drift between cycles and children does not touch;
    /// the suite reports their median, which a cycle the song's decoder or
    /// another process happened to land in does not pull as it pulls a sum.
    ///
    /// - Parameter state: the state measured.
    /// - Returns: one ratio per cycle, in the order measured.
    package func cycleRatios(_ state: State) -> [Double] {
        let perCycle = 2
        let cycles = cpu[State.off.rawValue].count / perCycle
        return (0..<cycles).map { cycle in
            let sum = { (state: State) in cpu[state.rawValue][cycle * perCycle..<(cycle + 1) * perCycle].reduce(0, +) }
            if state == .control || state == .off { return sum(state) / sum(.off) }
            return sum(state) / ((sum(.off) + sum(.control)) / 2)
        }
    }

    /// The length of one measured segment: `BACKBEAT_BENCH_MONITOR_SEGMENT_MS`
    /// milliseconds (100 to 5,000; the suite passes it on to its children),
    /// else one second.
    static var segmentMicroseconds: UInt64 {
        let asked = ProcessInfo.processInfo.environment[segmentVariable].flatMap { UInt64($0) }
        return asked.map { min(5_000, max(100, $0)) * 1_000 } ?? 1_000_000
    }
    /// The environment variable that sets ``segmentMicroseconds``.
    static let segmentVariable = "BACKBEAT_BENCH_MONITOR_SEGMENT_MS"
    /// The time each change of state is given to settle before its segment is measured.
    static let settleMicroseconds: UInt64 = 150_000

    /// What each state's segments really run: `BACKBEAT_BENCH_MONITOR_ACT`,
    /// four state names for `off`, `on`, `client` and `control` in turn
    /// (`off,off,off,off` measures the method's positional bias alone;
    /// `off,on,on,off` puts a client-less monitor in the client's places),
    /// else each state itself. For checking the method, not for figures.
    static var acted: [State] {
        let names = ["off": State.off, "on": .on, "client": .client, "control": .control]
        let asked = ProcessInfo.processInfo.environment[actVariable]?.split(separator: ",").compactMap {
            names[String($0)]
        }
        guard let asked, asked.count == State.allCases.count else { return State.allCases }
        return asked
    }
    /// The environment variable that sets ``acted``.
    static let actVariable = "BACKBEAT_BENCH_MONITOR_ACT"

    /// Which of the two orders this child's first cycle takes:
    /// `BACKBEAT_BENCH_MONITOR_PHASE`, 0 (the default: off first) or 1
    /// (control first); the suite gives its two children one each.
    static var phase: Int {
        ProcessInfo.processInfo.environment[phaseVariable] == "1" ? 1 : 0
    }
    /// The environment variable that sets ``phase``.
    static let phaseVariable = "BACKBEAT_BENCH_MONITOR_PHASE"

    /// The order of cycle `cycle`: off, on, client, control, mirrored; or,
    /// on the other cycles, the same with off and control, and on and
    /// client, in each other's places.
    ///
    /// - Parameters:
    ///   - cycle: the cycle's number from 0.
    ///   - phase: ``phase``: which order cycle 0 takes.
    package static func order(ofCycle cycle: Int, phase: Int) -> [State] {
        let half: [State] = (cycle + phase) % 2 == 0 ? [.off, .on, .client, .control] : [.control, .client, .on, .off]
        return half + half.reversed()
    }

    /// Cycles through the states on `engine` (playing the scene) for about
    /// `seconds`, each cycle mirrored (off, on, client, control, control,
    /// client, on, off, or every other cycle control, client, on, off, off,
    /// on, client, control: ``order(ofCycle:phase:)``), and returns the CPU
    /// of every segment.
    ///
    /// The process's CPU is `CLOCK_PROCESS_CPUTIME_ID` (every thread, in
    /// nanoseconds), less the client thread's own, since a monitor runs in
    /// another process.
    ///
    /// - Parameters:
    ///   - engine: the device engine playing the scene, monitoring off.
    ///   - seconds: the run's length; at least two cycles are measured.
    static func run(engine: AudioEngine, seconds: Int) throws -> MonitorCycles {
        let segmentMicroseconds = Self.segmentMicroseconds
        let cycle = UInt64(2 * State.allCases.count) * (segmentMicroseconds + settleMicroseconds)
        // An even number, so that each order is measured as often.
        let fitting = Int((UInt64(max(seconds, 3)) * 1_000_000 - 3_000_000) / cycle)
        let cycles = max(2, fitting - fitting % 2)
        var cpu = Array(repeating: [Double](), count: State.allCases.count)
        var client: InProcessClient?
        var snapshots = 0
        let acted = Self.acted
        let phase = Self.phase
        // The scene settles first: the stream fills, and the first
        // segment (always off) would otherwise carry the start's leftovers.
        DeviceScene.sleepMicroseconds(3_000_000)
        for cycle in 0..<cycles {
            for state in order(ofCycle: cycle, phase: phase) {
                switch acted[state.rawValue] {
                case .off, .control:
                    if let reader = client { snapshots += reader.stop() }
                    client = nil
                    engine.stopMonitoring()
                case .on:
                    if let reader = client { snapshots += reader.stop() }
                    client = nil
                    try engine.startMonitoring()
                case .client:
                    let socket = try engine.startMonitoring()
                    if client == nil { client = try InProcessClient(socket: socket.path) }
                }
                DeviceScene.sleepMicroseconds(settleMicroseconds)
                let start = processCPUSeconds() - (client?.cpuSeconds ?? 0)
                DeviceScene.sleepMicroseconds(segmentMicroseconds)
                let end = processCPUSeconds() - (client?.cpuSeconds ?? 0)
                cpu[state.rawValue].append(end - start)
            }
        }
        if let reader = client { snapshots += reader.stop() }
        engine.stopMonitoring()
        return MonitorCycles(cpu: cpu, snapshots: snapshots)
    }
}

/// A monitor client on a thread of the child's own, reading 10 snapshots a
/// second; its thread's CPU is known, so that it can be left out.
///
/// It reads as `backbeat monitor` does: on its own clock
/// (``TelemetryReadClock``), taking at each tick the lines that came.
/// ``stop()`` ends it at its next tick.
private final class InProcessClient: @unchecked Sendable {
    // @unchecked: `thread`, `client` and `failure` are set before `ready` is signalled and read after;
    // `lines` is written by the thread before `done` is signalled and read after; `stopping` is atomic.
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var thread = pthread_t()
    private var client: TelemetryClient?
    private var lines = 0
    private var failure: String?
    private let stopping = Atomic<Bool>(false)

    /// Connects to `socket` and asks for 10 snapshots a second, on a new thread.
    init(socket: String) throws {
        Thread { [self] in
            thread = pthread_self()
            defer { done.signal() }
            let client: TelemetryClient
            do {
                client = try TelemetryClient(path: socket)
                try client.send(TelemetryCommand(action: .rate(TelemetryProtocol.defaultRate)))
            } catch {
                failure = "\(error)"
                ready.signal()
                return
            }
            self.client = client
            ready.signal()
            // Until `stop()`, or the game ends the connection, or a read fails.
            var clock = TelemetryReadClock(rate: TelemetryProtocol.defaultRate)
            while !stopping.load(ordering: .relaxed) {
                guard clock.sleepToTick(atMost: clock.period) else { continue }
                guard let taken = try? client.availableRawLines() else { return }
                lines += taken.count
            }
        }.start()
        ready.wait()
        if let failure {
            done.wait()
            throw BenchError("the monitor client could not connect: \(failure)")
        }
    }

    /// The client thread's CPU so far, in seconds.
    var cpuSeconds: Double {
        var clock = clockid_t()
        var time = timespec()
        guard pthread_getcpuclockid(thread, &clock) == 0, clock_gettime(clock, &time) == 0 else { return 0 }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Stops the thread at its next tick, waits for it and closes; returns the lines read.
    func stop() -> Int {
        stopping.store(true, ordering: .relaxed)
        done.wait()
        client?.close()
        return lines
    }
}
