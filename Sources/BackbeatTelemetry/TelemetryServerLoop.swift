import BackbeatSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The server's thread: one poll(2) over the wake pipe, the listening
/// socket and every client, all non-blocking. It accepts and checks
/// clients, reads their commands, encodes each snapshot once for the clients
/// due one, and sends what each socket takes.
///
/// A snapshot usually goes out from the thread that publishes it (the
/// engine's update thread), through ``deliverNow(_:due:)``: encoded and
/// sent to the sockets that take it at once, without waking this thread.
/// Waking it was most of what a client cost the game: a pipe write, a poll
/// returning, a read, and a thread switched in, ten times a second.
final class TelemetryServerLoop: @unchecked Sendable {
    // @unchecked: every `var` (and the clients, the encoder and the read
    // buffer) is touched only with `state` held: by the server's thread, or
    // by a publishing thread that got it without waiting. The handoff is
    // Sendable.

    /// Clients served at once at most; the next one is told so and closed.
    static let maximumClients = 16

    private let listener: Int32
    private let path: String
    /// The socket file's device and inode, so that closing removes only our own.
    private let socketFile: (device: UInt, inode: UInt)
    private let handoff: TelemetryHandoff
    private let handler: @Sendable (TelemetryCommand) -> TelemetryReply
    private let hello: [UInt8]
    private var clients: [TelemetryConnection] = []
    private var spareEvents: [TelemetryEvent] = []
    /// Writes each snapshot's line, copying the voices that read as in the
    /// line before from a cache of fixed size, into storage the clients have let go of.
    private let encoder = TelemetrySnapshotEncoder()
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
    /// Set when accept ran out of descriptors: the listener is left out of
    /// the poll for a moment, since it would stay readable and spin.
    private var acceptPaused = false
    /// Guards the loop's state between its thread and a publishing thread.
    private let state = Lock()
    /// Set once the loop has closed every client: nothing is sent after.
    private var stopped = false

    init(
        listener: Int32, path: String, socketFile: (device: UInt, inode: UInt), handoff: TelemetryHandoff,
        hello: TelemetryHello, handler: @escaping @Sendable (TelemetryCommand) -> TelemetryReply
    ) {
        self.listener = listener
        self.path = path
        self.socketFile = socketFile
        self.handoff = handoff
        self.hello = hello.jsonLine
        self.handler = handler
        spareEvents.reserveCapacity(TelemetryHandoff.eventCapacity)
    }

    deinit { readBuffer.deallocate() }

    /// Serves until the handoff says close, then closes every descriptor and
    /// removes the socket file if it is still ours.
    func run() {
        var descriptors: [pollfd] = []
        while true {
            var timeout: Int32 = -1
            state.withLock {
                descriptors.removeAll(keepingCapacity: true)
                descriptors.append(pollfd(fd: handoff.wakeReader, events: Int16(POLLIN), revents: 0))
                descriptors.append(pollfd(fd: acceptPaused ? -1 : listener, events: Int16(POLLIN), revents: 0))
                for client in clients {
                    var events: Int16 = 0
                    if client.acceptsCommands { events |= Int16(POLLIN) }
                    if client.blocked { events |= Int16(POLLOUT) }
                    descriptors.append(pollfd(fd: client.descriptor, events: events, revents: 0))
                }
                timeout = acceptPaused ? 100 : -1
            }
            // Without the lock: a publishing thread sends meanwhile. It never
            // adds or removes a client, so the descriptors stay theirs.
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0 {
                // EINTR, or a shortage the next try may not meet: the server
                // keeps serving rather than stop behind the engine's back.
                if errno != EINTR { usleep(10_000) }
                continue
            }
            let closed = state.withLock { serveLocked(descriptors) }
            if closed { break }
        }
        state.withLock { shutDown() }
    }

    /// What the server's thread does once its poll returns: the handoff,
    /// the clients that polled ready, a new client, and every socket's output.
    /// With `state` held.
    ///
    /// - Parameter descriptors: the poll's descriptors, as `run()` built them.
    /// - Returns: whether the handoff says close.
    private func serveLocked(_ descriptors: [pollfd]) -> Bool {
        acceptPaused = false
        if descriptors[0].revents != 0 {
            let taken = handoff.take(events: &spareEvents)
            if taken.closed { return true }
            deliver(snapshot: taken.snapshot, due: taken.due, dropped: taken.dropped, events: spareEvents)
        }
        // Clients first, by the descriptors polled (accepting appends to `clients`).
        var gone: [TelemetryConnection] = []
        for (client, polled) in zip(clients, descriptors.dropFirst(2)) {
            // A send that failed on a publishing thread.
            if client.failed {
                gone.append(client)
            } else if polled.revents != 0 && !serve(client, revents: polled.revents) {
                gone.append(client)
            }
        }
        // Before accepting, which may hand a closed client's descriptor number to a new one.
        remove(gone)
        if descriptors[1].revents != 0 { acceptClients() }
        flushAll()
        return false
    }

    /// Sends `snapshot` to the clients due one, from the publishing thread,
    /// as the server's thread would: encoded once, then as much of each line
    /// as its socket takes at once, never waiting. What a socket does not
    /// take, and a send that fails, wake the server's thread, which polls
    /// that client for room and closes a failed one. Nothing is done, and
    /// false returned, when the server's thread holds the state (it is
    /// serving a command or a new client), events wait to go before the
    /// snapshot, or the server is closing: the caller leaves the snapshot
    /// in the handoff then.
    ///
    /// - Parameters:
    ///   - snapshot: the newest snapshot.
    ///   - due: the engine time it was due at.
    /// - Returns: whether it was delivered (sent, or queued behind what a socket still holds).
    func deliverNow(_ snapshot: TelemetrySnapshot, due: Double) -> Bool {
        state.withLockIfFree { () -> Bool in
            guard !stopped, handoff.claimDirectDelivery() else { return false }
            deliver(snapshot: snapshot, due: due, dropped: 0, events: [])
            var wake = false
            for client in clients where !client.failed && !client.blocked && client.hasOutput {
                if !client.flush() {
                    client.failed = true
                    wake = true
                } else if client.blocked {
                    wake = true
                }
            }
            if wake { handoff.wake() }
            return true
        } ?? false
    }

    /// Hands the snapshot to every client due one at `due` (encoding it
    /// once, if any is) and the events to every client.
    private func deliver(snapshot: TelemetrySnapshot?, due: Double, dropped: Int, events: [TelemetryEvent]) {
        if dropped > 0 {
            let time = events.first?.time ?? snapshot?.time ?? 0
            for client in clients { client.countDroppedEvents(dropped, at: time) }
        }
        for event in events {
            let line = event.jsonLine
            for client in clients { client.offerEvent(line, at: event.time) }
        }
        guard let snapshot else { return }
        var line: [UInt8]?
        for client in clients where client.isDue(at: due) {
            if line == nil { line = encoder.line(for: snapshot) }
            if let line { client.offerSnapshot(line, at: due) }
        }
    }

    /// Reads what a client sent and runs its commands.
    ///
    /// - Returns: false if the client is gone or must go.
    private func serve(_ client: TelemetryConnection, revents: Int16) -> Bool {
        if revents & Int16(POLLNVAL | POLLERR) != 0 { return false }
        // Not while its replies wait: its commands stay in the socket, and
        // a hang-up shows when the replies cannot be sent.
        guard client.acceptsCommands else { return true }
        if revents & Int16(POLLIN) != 0 || revents & Int16(POLLHUP) != 0 {
            // A few reads at most, so that one busy client does not hold the others up.
            for _ in 0..<4 {
                switch TelemetrySocket.receive(client.descriptor, into: readBuffer) {
                case .success(0):
                    // The client is done sending: answer what it asked, then close.
                    runCommands(of: client)
                    _ = client.flush()
                    return false
                case .success(let count):
                    let received = UnsafeRawBufferPointer(rebasing: readBuffer[..<count])
                    // A line that cannot fit is refused before it is kept, as
                    // `runCommands` would refuse it after: garbage never grows
                    // the buffer past the limit (and its allocation past 64 KiB).
                    if client.input.count + count > TelemetryProtocol.maximumCommandLength,
                        !received.contains(UInt8(ascii: "\n")), !client.input.contains(UInt8(ascii: "\n"))
                    {
                        client.sendFinal(Self.lineTooLong)
                        return false
                    }
                    client.input.append(contentsOf: received)
                    guard runCommands(of: client) else { return false }
                    if !client.acceptsCommands { return true }
                case .failure(let error) where error.code == EAGAIN || error.code == EWOULDBLOCK:
                    return true
                case .failure:
                    return false
                }
            }
        }
        return true
    }

    /// Runs each whole line in the client's input, as long as it accepts
    /// commands; a partial line longer than the protocol allows ends the connection.
    ///
    /// - Returns: false if the client must go.
    @discardableResult
    private func runCommands(of client: TelemetryConnection) -> Bool {
        var start = 0
        while client.acceptsCommands,
            let newline = client.input[start...].firstIndex(of: UInt8(ascii: "\n"))
        {
            run(line: client.input[start..<newline], from: client)
            start = newline + 1
        }
        client.input.removeFirst(start)
        // A long line's buffer is not kept for the connection's life.
        if client.input.isEmpty && client.input.capacity > 4096 { client.input = [] }
        // Whole lines waiting behind replies are bounded by the reads
        // stopping; only a line without its newline can grow.
        if client.input.count > TelemetryProtocol.maximumCommandLength
            && !client.input.contains(UInt8(ascii: "\n"))
        {
            client.sendFinal(Self.lineTooLong)
            return false
        }
        return true
    }

    /// The error line for a partial line longer than the protocol allows; the connection ends after it.
    private static let lineTooLong = TelemetryReply.error(
        "command line longer than \(TelemetryProtocol.maximumCommandLength) bytes without a newline", id: nil
    ).jsonLine

    private func run(line: ArraySlice<UInt8>, from client: TelemetryConnection) {
        var line = line
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        // A blank line (someone pressing return in a raw session) asks nothing.
        if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return }
        let reply: TelemetryReply
        if line.count > TelemetryProtocol.maximumCommandLength {
            reply = .error("command line longer than \(TelemetryProtocol.maximumCommandLength) bytes", id: nil)
        } else {
            do throws(TelemetryCommandError) {
                let command = try TelemetryCommand(line: line)
                switch command.action {
                case .rate(let rate):
                    client.setRate(rate)
                    updateCounters()
                    reply = .ok(id: command.id)
                case .set, .reload:
                    var answer = handler(command)
                    if answer.id == nil { answer.id = command.id }
                    reply = answer
                }
            } catch {
                reply = .error(error.message, id: nil)
            }
        }
        client.offerReply(reply.jsonLine)
    }

    /// Accepts every waiting connection: refuses another user's (one error
    /// line, no hello) and any beyond ``maximumClients``.
    private func acceptClients() {
        while true {
            let descriptor = accept(listener, nil, nil)
            if descriptor < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: acceptPaused = true
                default: break
                }
                break
            }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            let uid = TelemetrySocket.peerUserID(descriptor)
            if uid != geteuid() {
                let who = uid.map { "user \($0)" } ?? "an unknown user"
                refuse(descriptor, "monitor refused: \(who) is not this game's user \(geteuid())")
            } else if clients.count >= Self.maximumClients && !reapHungUpClients() {
                refuse(descriptor, "too many monitor clients (at most \(Self.maximumClients))")
            } else {
                clients.append(TelemetryConnection(descriptor: descriptor, hello: hello))
                updateCounters()
            }
        }
    }

    /// Closes the clients that hung up but that this turn of the loop has
    /// not seen yet, so that a client that left before another came does
    /// not count against it.
    ///
    /// - Returns: whether a place is free now.
    private func reapHungUpClients() -> Bool {
        var descriptors = clients.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        guard poll(&descriptors, nfds_t(descriptors.count), 0) > 0 else { return false }
        var gone: [TelemetryConnection] = []
        for (client, polled) in zip(clients, descriptors) where polled.revents & Int16(POLLHUP | POLLERR) != 0 {
            // It hung up: what it sent still runs, but no reply can reach it,
            // so it goes even with replies waiting (a client that sent lines
            // of garbage and left has up to 16 error replies queued).
            _ = serve(client, revents: polled.revents)
            gone.append(client)
        }
        remove(gone)
        return clients.count < Self.maximumClients
    }

    private func refuse(_ descriptor: Int32, _ message: String) {
        _ = TelemetrySocket.sendSome(descriptor, TelemetryReply.error(message, id: nil).jsonLine, from: 0)
        close(descriptor)
    }

    private func remove(_ gone: [TelemetryConnection]) {
        guard !gone.isEmpty else { return }
        clients.removeAll { client in
            guard gone.contains(where: { $0 === client }) else { return false }
            close(client.descriptor)
            return true
        }
        updateCounters()
    }

    /// Sends what each client's socket takes; closes the clients that went away.
    private func flushAll() {
        var gone: [TelemetryConnection] = []
        for client in clients {
            if client.hasOutput && !client.flush() {
                gone.append(client)
                continue
            }
            // Replies went out: commands held back behind them run now, as
            // long as their replies go out too (no new bytes will wake the
            // poll for them; a full socket will, through POLLOUT).
            while !client.blocked && client.acceptsCommands && client.input.contains(UInt8(ascii: "\n")) {
                guard runCommands(of: client), client.flush() else {
                    gone.append(client)
                    break
                }
            }
        }
        remove(gone)
    }

    private func updateCounters() {
        handoff.requestedRate.store(clients.map(\.rate).max() ?? 0, ordering: .relaxed)
        handoff.clientCount.store(clients.count, ordering: .relaxed)
    }

    private func shutDown() {
        stopped = true
        for client in clients { close(client.descriptor) }
        clients.removeAll()
        updateCounters()
        close(listener)
        var status = stat()
        if stat(path, &status) == 0, UInt(status.st_dev) == socketFile.device, UInt(status.st_ino) == socketFile.inode {
            unlink(path)
        }
        handoff.closePipe()
    }
}
