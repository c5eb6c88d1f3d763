#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One monitor client as the server's thread sees it: its socket, its rate,
/// the command bytes it sent that have not made a line yet, and what waits
/// to go out to it. Everything here is bounded, so that a client that reads
/// slowly, or not at all, costs a fixed amount of memory: the newest
/// snapshot only (a newer one replaces it), at most ``eventCapacity`` event
/// lines (the oldest go, and a `dropped` event says how many), and at most
/// ``replyCapacity`` replies (past that, the server stops reading its
/// commands until it reads its replies).
final class TelemetryConnection {
    static let eventCapacity = 256
    static let replyCapacity = 16
    /// How far before its due time a snapshot still counts as due: half a
    /// frame at 48 kHz, so that engine times that are sums of update
    /// periods are not missed by a rounding error.
    static let dueTolerance = 0.5 / 48_000

    let descriptor: Int32
    /// Snapshots per second, in engine time.
    private(set) var rate = TelemetryProtocol.defaultRate
    /// The engine time of the last snapshot handed to this client.
    private var lastSent: Double?
    /// The engine time from which the next snapshot is due.
    private var nextDue = -Double.infinity

    /// Bytes read that do not end in a newline yet.
    var input: [UInt8] = []
    /// Whether the last send found the socket full (poll for POLLOUT).
    var blocked = false
    /// Whether a send from a publishing thread failed: the server's thread closes it.
    var failed = false

    /// The bytes being sent, and how many of them went out.
    private var chunk: [UInt8]
    private var chunkOffset = 0
    private var replies: [[UInt8]] = []
    private var events: [[UInt8]] = []
    private var droppedEvents = 0
    private var droppedTime = 0.0
    private var snapshot: [UInt8]?

    /// A connection that first sends `hello`.
    ///
    /// - Parameters:
    ///   - descriptor: the accepted, non-blocking socket.
    ///   - hello: the hello line.
    init(descriptor: Int32, hello: [UInt8]) {
        self.descriptor = descriptor
        chunk = hello
    }

    /// Whether a snapshot due at engine time `time` is due to this client.
    ///
    /// - Parameter time: the engine time the snapshot was due at (its own
    ///   time, or earlier when the engine built it late), in seconds.
    func isDue(at time: Double) -> Bool {
        time >= nextDue - Self.dueTolerance
    }

    /// Takes `line`, the snapshot due at `time`, as the one to send next,
    /// replacing one not yet sent.
    ///
    /// - Parameters:
    ///   - line: the encoded snapshot, shared between clients.
    ///   - time: the engine time it was due at.
    func offerSnapshot(_ line: [UInt8], at time: Double) {
        snapshot = line
        let period = 1 / Double(rate)
        // Keep the average rate when the engine's snapshot times fall
        // between this client's due times; start over after a gap.
        nextDue = nextDue + period > time ? nextDue + period : time + period
        lastSent = time
    }

    /// Changes the rate; the next snapshot is due one new period after the last one sent.
    ///
    /// - Parameter newRate: snapshots per second, 1...60.
    func setRate(_ newRate: Int) {
        rate = newRate
        if let lastSent { nextDue = lastSent + 1 / Double(newRate) }
    }

    /// Queues an event line, dropping the oldest beyond ``eventCapacity``.
    ///
    /// - Parameters:
    ///   - line: the encoded event, shared between clients.
    ///   - time: its engine time, for the `dropped` event that may follow.
    func offerEvent(_ line: [UInt8], at time: Double) {
        if events.count >= Self.eventCapacity {
            events.removeFirst()
            droppedEvents += 1
        }
        events.append(line)
        droppedTime = time
    }

    /// Counts events dropped before they reached this client (the handoff's ring overflowed).
    ///
    /// - Parameters:
    ///   - count: how many.
    ///   - time: the engine time to stamp the `dropped` event with.
    func countDroppedEvents(_ count: Int, at time: Double) {
        droppedEvents += count
        droppedTime = max(droppedTime, time)
    }

    /// Queues a reply to a command.
    ///
    /// - Parameter reply: the reply line.
    func offerReply(_ reply: [UInt8]) {
        replies.append(reply)
    }

    /// Whether the server may read more commands: not while replies wait.
    var acceptsCommands: Bool { replies.count < Self.replyCapacity }

    /// Whether anything waits to go out.
    var hasOutput: Bool {
        chunkOffset < chunk.count || !replies.isEmpty || droppedEvents > 0 || !events.isEmpty || snapshot != nil
    }

    /// Sends what the socket takes without waiting.
    ///
    /// - Returns: false if the client is gone (the connection should close).
    func flush() -> Bool {
        blocked = false
        while true {
            if chunkOffset == chunk.count {
                guard fillChunk() else { return true }
            }
            switch TelemetrySocket.sendSome(descriptor, chunk, from: chunkOffset) {
            case .failure: return false
            case .success(0):
                blocked = true
                return true
            case .success(let sent): chunkOffset += sent
            }
        }
    }

    /// Sends `line` as the last thing this client gets, without waiting,
    /// after ending a line cut short if one was being sent; what was queued
    /// is dropped.
    ///
    /// - Parameter line: the error line.
    func sendFinal(_ line: [UInt8]) {
        let cut = chunkOffset > 0 && chunkOffset < chunk.count
        _ = TelemetrySocket.sendSome(descriptor, (cut ? [UInt8(ascii: "\n")] : []) + line, from: 0)
    }

    /// Puts the next lines in `chunk`: replies, then the `dropped` notice,
    /// then events, written together; or else the snapshot, which is sent
    /// from its shared array without a copy.
    private func fillChunk() -> Bool {
        if replies.isEmpty && droppedEvents == 0 && events.isEmpty {
            guard let snapshot else {
                // All sent: let go of the shared snapshot line, so that the
                // server writes the next one into its storage, not a new array.
                chunk = []
                chunkOffset = 0
                return false
            }
            chunkOffset = 0
            chunk = snapshot
            self.snapshot = nil
            return true
        }
        chunkOffset = 0
        chunk = []
        for reply in replies { chunk += reply }
        replies.removeAll(keepingCapacity: true)
        if droppedEvents > 0 {
            let message = "\(droppedEvents) event lines dropped: the monitor read too slowly"
            chunk += TelemetryEvent(time: droppedTime, event: .dropped, message: message).jsonLine
            droppedEvents = 0
        }
        var taken = 0
        for event in events {
            guard chunk.count < 64 * 1024 else { break }
            chunk += event
            taken += 1
        }
        events.removeFirst(taken)
        return true
    }
}
