#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one door to the socket system calls the monitor's server and client
/// make: Unix stream sockets, their addresses, peer credentials and
/// non-blocking sends. Failures come back as errno values, which the callers
/// turn into their own typed errors with context.
enum TelemetrySocket {
    /// `sockaddr_un.sun_path`'s capacity, the terminating NUL included.
    static let maximumPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    /// errno's message, such as "Connection refused".
    ///
    /// - Parameter code: an errno value.
    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// A new Unix stream socket, close-on-exec.
    ///
    /// - Parameter nonBlocking: whether reads, writes and accepts return EAGAIN instead of waiting.
    /// - Returns: the descriptor, or the errno.
    static func makeStream(nonBlocking: Bool) -> Result<Int32, Errno> {
        var type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
        let descriptor = socket(AF_UNIX, type, 0)
        return descriptor >= 0 ? .success(descriptor) : .failure(Errno(errno))
    }

    /// Runs `body` with `path` as a socket address; nil when the path does
    /// not fit in `sun_path` (or holds a NUL, which would cut it short).
    ///
    /// - Parameters:
    ///   - path: the socket file's path.
    ///   - body: gets the address and its length, for bind and connect.
    static func withAddress<T>(
        of path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T
    ) -> T? {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < maximumPathBytes, !bytes.contains(0) else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// Connects `descriptor` to the socket at `path`, waiting if the socket blocks.
    ///
    /// - Parameters:
    ///   - descriptor: a socket from ``makeStream(nonBlocking:)``.
    ///   - path: the socket file.
    /// - Returns: nil on success, else the errno (ENAMETOOLONG for a path too long).
    static func connect(_ descriptor: Int32, to path: String) -> Errno? {
        let result = withAddress(of: path) { address, length in
            while true {
                if Glibc.connect(descriptor, address, length) == 0 { return Errno?.none }
                if errno != EINTR { return Errno(errno) }
            }
        }
        return result ?? Errno(ENAMETOOLONG)
    }

    /// Whether something accepts connections at `path` now: a live server.
    /// Refused, missing or not a socket all answer false.
    ///
    /// - Parameter path: the socket file.
    static func isListening(at path: String) -> Bool {
        guard case .success(let probe) = makeStream(nonBlocking: true) else { return false }
        defer { Glibc.close(probe) }
        // A non-blocking connect to a live Unix socket succeeds at once or,
        // with a full backlog, says EAGAIN: either way someone listens.
        switch connect(probe, to: path) {
        case nil: return true
        case let error?: return error.code == EAGAIN || error.code == EINPROGRESS
        }
    }

    /// The user id of the process at the other end of a connected Unix socket (SO_PEERCRED).
    ///
    /// - Parameter descriptor: an accepted connection.
    /// - Returns: the peer's effective user id, or nil if the kernel did not say.
    static func peerUserID(_ descriptor: Int32) -> uid_t? {
        // struct ucred needs _GNU_SOURCE, which the Glibc module lacks; its
        // layout (pid, uid, gid: three 32-bit fields) is fixed by the ABI.
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
            length == socklen_t(MemoryLayout.size(ofValue: credentials))
        else { return nil }
        return credentials.uid
    }

    /// Sends what it can of `bytes[offset...]` without waiting and without
    /// SIGPIPE (MSG_NOSIGNAL: a client that went away is an EPIPE, not a signal).
    ///
    /// - Parameters:
    ///   - descriptor: a connected socket.
    ///   - bytes: the line or lines.
    ///   - offset: how much of `bytes` went out already.
    /// - Returns: how many bytes went out (0 when the socket is full), or the errno.
    static func sendSome(_ descriptor: Int32, _ bytes: [UInt8], from offset: Int) -> Result<Int, Errno> {
        bytes.withUnsafeBytes { raw in
            let remaining = UnsafeRawBufferPointer(rebasing: raw[offset...])
            while true {
                let sent = send(descriptor, remaining.baseAddress, remaining.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                if sent >= 0 { return .success(sent) }
                switch errno {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: return .success(0)
                case let code: return .failure(Errno(code))
                }
            }
        }
    }

    /// Receives what is there, up to `buffer.count` bytes, retrying on EINTR.
    ///
    /// - Parameters:
    ///   - descriptor: a connected socket.
    ///   - buffer: where the bytes go.
    /// - Returns: the count (0 at end of stream), or the errno (EAGAIN when nothing is there).
    static func receive(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return .success(count) }
            if errno != EINTR { return .failure(Errno(errno)) }
        }
    }
}

/// An errno value with its message.
struct Errno: Error, Equatable, CustomStringConvertible {
    var code: Int32

    init(_ code: Int32) { self.code = code }

    var description: String { TelemetrySocket.describe(code) }
}
