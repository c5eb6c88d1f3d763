import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What an engine keeps for monitoring (`AudioEngine+Monitoring.swift`):
/// whether it is on, the socket it serves, where the next snapshot is due,
/// and the figures a snapshot reports. Touched only under the engine lock.
struct EngineMonitoring {
    /// Monitoring is on: music streams keep their levels for the snapshots.
    var isOn = false
    /// The socket served, while monitoring serves one.
    var socketURL: URL?
    /// The engine frame the last snapshot was built at: the next one's window starts there.
    var lastSnapshotFrame: Int64 = 0
    /// The engine frame at or after which the update step builds the next snapshot for the server.
    var nextSnapshotFrame: Int64 = 0
    /// Whether a client asked for snapshots at the last update step; when
    /// one asks again, the CPU figure's window starts afresh.
    var clientAsked = false
    /// The update thread's CPU time in update steps since the last snapshot, in nanoseconds.
    var stepCPUNanoseconds: Int64 = 0
    /// A device's update loop thread's CPU time at the last snapshot (it is
    /// timed whole, not step by step), nil until a client asks.
    var loopCPUStart: Int64?
    /// Stream underruns since the engine opened (counted whether or not monitoring is on).
    var underruns = 0
    /// One bus's level as a snapshot sums it: its voices' and its children's
    /// (on the stack: a stored field here would move the engine's fields).
    struct LevelTotal {
        var meanSquare = 0.0
        var peak = 0.0
        /// Some signal reached the bus (a silent one reads the floor, not 0 dB).
        var reached = false
    }

    /// The calling thread's CPU time, in nanoseconds.
    static func threadCPUNanoseconds() -> Int64 {
        var time = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return 0 }
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// Socket paths monitored in this process, so two engines never serve the same one.
    static let socketsInUse = LockedValueBox<Set<String>>([])
}
