import BackbeatSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The game's side of the monitor protocol: a Unix domain socket that
/// serves snapshots and event lines to monitor clients and takes their
/// commands.
///
/// The socket's folder is private (0700, this user's) and the socket 0600;
/// a client of another user id is refused (SO_PEERCRED). A thread of the
/// server's own accepts clients, reads their commands and sends events and
/// replies. The engine hands it snapshots and events with
/// ``publish(_:due:)``, which never waits on a client: a snapshot is sent
/// from the publishing thread as far as the sockets take it at once, and
/// what they do not take, the server's thread sends when they have room;
/// each client gets a hello line, then snapshots at its own rate in engine
/// time (``TelemetryProtocol/defaultRate`` until it sends a `rate` command),
/// every event, and one reply per command. `set` and `reload` commands go to
/// the handler; `rate` the server answers itself.
package final class TelemetryServer: @unchecked Sendable {
    // @unchecked: the stored properties are constants; the handoff is
    // Sendable and the loop guards its own state (see TelemetryServerLoop).

    /// The socket file's path.
    package let path: String

    private let handoff: TelemetryHandoff
    private let loop: TelemetryServerLoop
    private let thread: JoinableThread

    /// Starts serving at `path`.
    ///
    /// The folder holding `path` is made private (created mode 0700 if
    /// missing; group and other bits taken away; refused if another user owns
    /// it). A stale socket at `path`, one nobody accepts on (a crashed
    /// game's), is replaced; a live one is an error.
    ///
    /// - Parameters:
    ///   - path: the socket file's absolute path, usually ``TelemetryEndpoint/socketPath(pid:environment:)``.
    ///   - hello: the first line each client gets.
    ///   - handler: runs a `set` or `reload` command and says how it went; called
    ///     on the server's thread, one command at a time. The reply's `id` is
    ///     the command's when the handler leaves it nil.
    /// - Throws: ``TelemetryServerError`` naming the path and the reason.
    package init(
        path: String, hello: TelemetryHello,
        handler: @escaping @Sendable (TelemetryCommand) -> TelemetryReply
    ) throws(TelemetryServerError) {
        self.path = path
        // The folder is made private, so it must be named, never the working directory by accident.
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else {
            throw TelemetryServerError("the monitor socket path \(path) must be absolute and inside a folder")
        }
        try TelemetryEndpoint.preparePrivateDirectory(String(path[..<slash]))
        let (listener, socketFile) = try Self.listen(at: path)
        do {
            handoff = try TelemetryHandoff()
        } catch {
            Glibc.close(listener)
            unlink(path)
            throw error
        }
        loop = TelemetryServerLoop(
            listener: listener, path: path, socketFile: socketFile, handoff: handoff, hello: hello,
            handler: handler)
        thread = JoinableThread(name: "Backbeat monitor") { [loop] in loop.run() }
        thread.start()
    }

    deinit { close() }

    /// The highest snapshot rate a connected client asked for, 0 when no
    /// client is connected: the engine's update step reads it to know
    /// whether (and how often) to build a snapshot. One atomic load.
    package var requestedRate: Int { handoff.requestedRate.load(ordering: .relaxed) }

    /// How many clients are connected and served.
    package var clientCount: Int { handoff.clientCount.load(ordering: .relaxed) }

    /// Hands a snapshot to the clients that are due one. Never waits on a
    /// client: it is encoded and sent from this thread, as far as each
    /// socket takes it at once (``TelemetryServerLoop/deliverNow(_:due:)``),
    /// or, while the server's thread is busy with a client or events wait
    /// to go first, left for that thread, replacing one it has not taken yet.
    ///
    /// - Parameters:
    ///   - snapshot: the snapshot, built under the engine lock.
    ///   - due: the engine time it was due at, when it was built later than
    ///     that (a device's update step builds it at the first step that
    ///     comes after it is due); nil: its own time. Each client's rate
    ///     counts in due times, so that a late snapshot followed by one on
    ///     time does not look early and go unsent.
    package func publish(_ snapshot: TelemetrySnapshot, due: Double? = nil) {
        let due = min(due ?? snapshot.time, snapshot.time)
        // With nobody watching, monitoring costs one atomic load.
        guard handoff.clientCount.load(ordering: .relaxed) > 0 else { return }
        if loop.deliverNow(snapshot, due: due) { return }
        handoff.publish(snapshot, due: due)
    }

    /// Hands an event line to every client (none, and nothing is kept, when
    /// no client is connected). Never waits on a client; past
    /// a bounded backlog the oldest events are dropped and the clients told
    /// how many (a `dropped` event).
    ///
    /// - Parameter event: what happened.
    package func publish(_ event: TelemetryEvent) {
        handoff.publish(event)
    }

    /// Stops serving: closes every client and the socket, and removes the
    /// socket file if it is still this server's. Waits for the server's
    /// thread, so it must not be called holding a lock the handler takes
    /// (the engine's); from the handler itself it does not wait. Only the
    /// first call does anything.
    package func close() {
        guard handoff.close() else { return }
        thread.joinUnlessCurrent()
    }

    /// Binds and listens at `path`, after removing a stale socket there.
    private static func listen(at path: String) throws(TelemetryServerError) -> (Int32, (device: UInt, inode: UInt)) {
        guard path.utf8.count < TelemetrySocket.maximumPathBytes else {
            throw TelemetryServerError(
                "the monitor socket path \(path) is longer than \(TelemetrySocket.maximumPathBytes - 1) bytes")
        }
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else {
                throw TelemetryServerError("cannot serve the monitor at \(path): a file that is not a socket is there")
            }
            if TelemetrySocket.isListening(at: path) { throw alreadyServing(path) }
            // Nobody accepts on it: a crashed game's socket.
            unlink(path)
        }
        let listener: Int32
        switch TelemetrySocket.makeStream(nonBlocking: true) {
        case .success(let descriptor): listener = descriptor
        case .failure(let error): throw TelemetryServerError("cannot make the monitor socket: \(error)")
        }
        let bound = TelemetrySocket.withAddress(of: path) { address, length in
            bind(listener, address, length) == 0 ? 0 : errno
        }
        if bound != 0 {
            Glibc.close(listener)
            let code = bound ?? ENAMETOOLONG
            if code == EADDRINUSE { throw alreadyServing(path) }
            throw TelemetryServerError("cannot serve the monitor at \(path): \(TelemetrySocket.describe(code))")
        }
        // The folder is private already; the socket is too, whatever the umask.
        guard chmod(path, 0o600) == 0, Glibc.listen(listener, 32) == 0, stat(path, &status) == 0 else {
            let reason = TelemetrySocket.describe(errno)
            Glibc.close(listener)
            unlink(path)
            throw TelemetryServerError("cannot serve the monitor at \(path): \(reason)")
        }
        return (listener, (UInt(status.st_dev), UInt(status.st_ino)))
    }

    private static func alreadyServing(_ path: String) -> TelemetryServerError {
        TelemetryServerError("another engine in this process is already monitoring at \(path)")
    }
}
