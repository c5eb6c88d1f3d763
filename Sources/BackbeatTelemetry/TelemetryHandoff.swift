import BackbeatSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where the engine's update thread leaves snapshots and events for the
/// server's thread, and what it reads back: a slot for the newest snapshot
/// (when the publishing thread could not send it itself; see
/// ``TelemetryServerLoop/deliverNow(_:due:)``),
/// a bounded ring of events, and a wake pipe. Publishing never waits on the
/// network: it takes a lock that the server holds only to swap these out,
/// and writes one byte to the pipe only when the server is not already due
/// to look. With no client connected, publishing returns at once: there is
/// nobody to deliver to, and the server's thread stays asleep.
final class TelemetryHandoff: @unchecked Sendable {
    // @unchecked: the `var`s are read and written only while `lock` is held;
    // `requestedRate` and `clientCount` are atomics; the pipe's descriptors
    // are written to only under the lock and closed under it once `closed`.

    /// Events waiting for the server thread at most; beyond, the oldest go.
    static let eventCapacity = 256

    private let lock = Lock()
    private var snapshot: TelemetrySnapshot?
    /// The engine time `snapshot` was due at (its own time, or earlier).
    private var snapshotDue = 0.0
    private var events: [TelemetryEvent] = []
    private var droppedEvents = 0
    /// A byte is in the pipe (or about to be) that the server has not taken yet.
    private var wakePending = false
    private var closed = false
    private var pipeOpen = true

    /// The pipe's ends: the server polls `wakeReader`; publishers write to `wakeWriter`.
    let wakeReader: Int32
    private let wakeWriter: Int32

    /// The highest rate any connected client asked for, 0 with none.
    let requestedRate = Atomic<Int>(0)
    /// How many clients are connected and served.
    let clientCount = Atomic<Int>(0)

    /// A handoff with a new non-blocking, close-on-exec wake pipe.
    ///
    /// - Throws: ``TelemetryServerError`` when the system has no descriptors left.
    init() throws(TelemetryServerError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw TelemetryServerError("cannot make the monitor's wake pipe: \(TelemetrySocket.describe(errno))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeReader = ends[0]
        wakeWriter = ends[1]
        events.reserveCapacity(Self.eventCapacity)
    }

    /// Leaves `snapshot` in the slot, replacing one the server has not taken.
    ///
    /// - Parameters:
    ///   - snapshot: the newest snapshot.
    ///   - due: the engine time it was due at, which the clients' rates count in.
    func publish(_ snapshot: TelemetrySnapshot, due: Double) {
        // The server published it only with a client connected (TelemetryServer.publish).
        // The replaced snapshot is released after the lock, not under it.
        var replaced: TelemetrySnapshot? = snapshot
        lock.withLock {
            guard !closed else { return }
            swap(&self.snapshot, &replaced)
            snapshotDue = due
            wakeLocked()
        }
        _ = replaced
    }

    /// Whether a snapshot may go to the clients now, from the publishing
    /// thread (``TelemetryServerLoop/deliverNow(_:due:)``): not while events
    /// published before it wait for the server's thread (they go out first,
    /// in order) or once closing. A snapshot waiting in the slot, older than
    /// the one going now, is dropped, so that the server does not send it after.
    func claimDirectDelivery() -> Bool {
        var dropped: TelemetrySnapshot?
        let claimed = lock.withLock { () -> Bool in
            guard !closed, events.isEmpty, droppedEvents == 0 else { return false }
            swap(&dropped, &snapshot)
            return true
        }
        _ = dropped
        return claimed
    }

    /// Wakes the server's thread, to poll again (a client's socket filled,
    /// or a send failed, on the publishing thread).
    func wake() {
        lock.withLock { wakeLocked() }
    }

    /// Adds `event` to the ring, dropping the oldest when it is full.
    ///
    /// - Parameter event: what happened.
    func publish(_ event: TelemetryEvent) {
        guard clientCount.load(ordering: .relaxed) > 0 else { return }
        lock.withLock {
            guard !closed else { return }
            if events.count >= Self.eventCapacity {
                events.removeFirst()
                droppedEvents += 1
            }
            events.append(event)
            wakeLocked()
        }
    }

    /// Asks the server thread to stop.
    ///
    /// - Returns: whether this call was the first to.
    func close() -> Bool {
        lock.withLock {
            guard !closed else { return false }
            wakeLocked()
            closed = true
            return true
        }
    }

    /// What the server thread takes on waking: the snapshot and the time it
    /// was due at, the events (swapped with `spare`, which comes back empty
    /// with its capacity, so that publishing does not allocate), how many
    /// events the ring dropped, and whether the server must stop.
    ///
    /// - Parameter spare: the server's empty event array; gets the events.
    func take(
        events spare: inout [TelemetryEvent]
    ) -> (snapshot: TelemetrySnapshot?, due: Double, dropped: Int, closed: Bool) {
        // Empty the pipe before looking, so that a publish after the look
        // leaves a byte behind and wakes the next poll.
        // Publishers leave at most a byte or two (one per wake, one to
        // close): one read empties it, and another, which would find it empty,
        // is a system call per snapshot for nothing.
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { sink in
            while read(wakeReader, sink.baseAddress, sink.count) == sink.count {}
        }
        spare.removeAll(keepingCapacity: true)
        return lock.withLock {
            wakePending = false
            swap(&events, &spare)
            defer {
                snapshot = nil
                droppedEvents = 0
            }
            return (snapshot, snapshotDue, droppedEvents, closed)
        }
    }

    /// Closes the pipe once the server thread is done with it.
    func closePipe() {
        lock.withLock {
            guard pipeOpen else { return }
            pipeOpen = false
            Glibc.close(wakeReader)
            Glibc.close(wakeWriter)
        }
    }

    deinit { closePipe() }

    private func wakeLocked() {
        guard !wakePending, pipeOpen else { return }
        wakePending = true
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)
    }
}
