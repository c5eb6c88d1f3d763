import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A monitor's connection to a game's socket: sends commands, reads lines.
/// For one thread (the command-line tool's).
///
/// A monitor that follows a game reads on its own clock
/// (``TelemetryReadClock``): it sleeps to each tick, then takes the lines
/// that came (``availableRawLines()``). One that waits on the socket is
/// woken by each line the game sends, and the game's send pays for that
/// wakeup (Monitoring.md). ``nextRawLine(timeout:)`` waits, for a hello, a
/// command's reply or a test.
package final class TelemetryClient {
    /// The longest line read; a longer one is an error rather than unbounded memory.
    static let maximumLineLength = 64 * 1024 * 1024
    /// The most bytes one ``availableRawLines()`` reads: a game that sends
    /// without pause cannot hold its reader there.
    static let takeLimit = 4 * 1024 * 1024

    /// The socket's path.
    package let path: String
    /// The socket, or -1 once closed.
    private(set) var descriptor: Int32
    private var buffer: [UInt8] = []
    /// How much of `buffer` was searched for a newline already.
    private var scanned = 0
    private var ended = false
    /// Where each read lands before it joins `buffer`.
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    /// Connects to the game with this process id, at its socket in
    /// ``TelemetryEndpoint/directory(environment:)``.
    ///
    /// - Parameters:
    ///   - pid: the game's process id.
    ///   - environment: the variables the socket's folder comes from.
    /// - Throws: ``TelemetryClientError``: no such process, a process that is
    ///   not monitoring (no socket), or a socket that refuses.
    package convenience init(
        pid: Int32, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(TelemetryClientError) {
        guard TelemetryEndpoint.processExists(pid) else { throw TelemetryClientError("no process with PID \(pid)") }
        let path = TelemetryEndpoint.socketPath(pid: pid, environment: environment)
        let name = TelemetryEndpoint.processName(of: pid) ?? "?"
        var status = stat()
        guard lstat(path, &status) == 0 else {
            throw TelemetryClientError("PID \(pid) (\(name)) is not monitoring: no socket at \(path)")
        }
        do {
            try self.init(path: path)
        } catch {
            throw TelemetryClientError("PID \(pid) (\(name)): \(error.message)")
        }
    }

    /// Connects to the socket at `path`.
    ///
    /// - Parameter path: the socket file.
    /// - Throws: ``TelemetryClientError`` naming the path and the reason.
    package init(path: String) throws(TelemetryClientError) {
        self.path = path
        switch TelemetrySocket.makeStream(nonBlocking: false) {
        case .success(let descriptor): self.descriptor = descriptor
        case .failure(let error): throw TelemetryClientError("cannot make a socket: \(error)")
        }
        if let error = TelemetrySocket.connect(descriptor, to: path) {
            Glibc.close(descriptor)
            descriptor = -1
            switch error.code {
            case ECONNREFUSED:
                throw TelemetryClientError("\(path) refused the connection (a stale socket: the game is gone)")
            case ENOENT: throw TelemetryClientError("no monitor socket at \(path)")
            case EACCES, EPERM: throw TelemetryClientError("no permission to connect to \(path) (another user's game?)")
            default: throw TelemetryClientError("cannot connect to \(path): \(error)")
            }
        }
    }

    deinit { close() }

    /// Sends one command line.
    ///
    /// - Parameter command: the command.
    /// - Throws: ``TelemetryClientError`` if the game closed the connection.
    package func send(_ command: TelemetryCommand) throws(TelemetryClientError) {
        try send(line: command.line)
    }

    /// Sends one line as given (a newline is added).
    ///
    /// - Parameter line: the line, without its newline.
    /// - Throws: ``TelemetryClientError`` if the game closed the connection.
    package func send(line: String) throws(TelemetryClientError) {
        guard descriptor >= 0 else { throw TelemetryClientError("the connection to \(path) is closed") }
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                throw TelemetryClientError("cannot send to \(path): \(TelemetrySocket.describe(errno))")
            }
            offset += sent
        }
    }

    /// Reads the next line, decoded.
    ///
    /// - Parameter timeout: seconds to wait at most, or nil to wait as long as it takes.
    /// - Returns: the line, or nil at the end of the stream (the game closed it).
    /// - Throws: ``TelemetryClientError`` on a timeout, a read error or a line too long.
    package func nextLine(timeout: Double?) throws(TelemetryClientError) -> TelemetryLine? {
        try nextRawLine(timeout: timeout).map(TelemetryLine.decode)
    }

    /// Reads the next line as received, without its newline (the `--json`
    /// mode prints snapshot lines exactly so).
    ///
    /// - Parameter timeout: seconds to wait at most, or nil to wait as long as it takes.
    /// - Returns: the line, or nil at the end of the stream.
    /// - Throws: ``TelemetryClientError`` on a timeout, a read error or a line too long.
    package func nextRawLine(timeout: Double?) throws(TelemetryClientError) -> String? {
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        let deadline = timeout.map { Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9 + max(0, $0) }
        while true {
            if let line = takeLine() { return line }
            if ended || descriptor < 0 { return takeLastLine() }
            try checkLineLength()
            try waitForInput(until: deadline, timeout: timeout ?? 0)
            _ = try readSome()
        }
    }

    /// Every line that has come, as received, without waiting for more: what
    /// a monitor reading on its own clock (``TelemetryReadClock``) takes at
    /// each tick. Reads at most ``takeLimit`` bytes; the rest waits for the
    /// next call.
    ///
    /// - Returns: the lines, without their newlines, in order (none when
    ///   nothing came); nil once the game has closed the connection and every
    ///   line was taken.
    /// - Throws: ``TelemetryClientError`` on a read error or a line too long.
    package func availableRawLines() throws(TelemetryClientError) -> [String]? {
        var taken = 0
        while taken < Self.takeLimit, !ended, descriptor >= 0, try hasInput() {
            taken += try readSome()
        }
        var lines: [String] = []
        while let line = takeLine() { lines.append(line) }
        if ended || descriptor < 0 {
            if let last = takeLastLine() { lines.append(last) }
            return lines.isEmpty ? nil : lines
        }
        try checkLineLength()
        return lines
    }

    /// Closes the connection; later reads return nil.
    package func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    /// The next whole line in `buffer`, taken out of it; nil when none is whole yet.
    private func takeLine() -> String? {
        guard let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) else {
            scanned = buffer.count
            return nil
        }
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeFirst(newline + 1)
        scanned = 0
        return line
    }

    /// What is left in `buffer` once the stream has ended: a last line without
    /// a newline still counts. Nil when nothing is left.
    private func takeLastLine() -> String? {
        guard !buffer.isEmpty else { return nil }
        defer {
            buffer.removeAll()
            scanned = 0
        }
        return String(decoding: buffer, as: UTF8.self)
    }

    private func checkLineLength() throws(TelemetryClientError) {
        guard buffer.count <= Self.maximumLineLength else {
            throw TelemetryClientError("a line from \(path) is longer than \(Self.maximumLineLength) bytes")
        }
    }

    /// Whether a read would find something now (data, or the end of the stream).
    private func hasInput() throws(TelemetryClientError) -> Bool {
        var polled = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&polled, 1, 0)
            if ready >= 0 { return ready > 0 }
            if errno != EINTR {
                throw TelemetryClientError("cannot read from \(path): \(TelemetrySocket.describe(errno))")
            }
        }
    }

    private func waitForInput(until deadline: Double?, timeout: Double) throws(TelemetryClientError) {
        guard let deadline else { return }
        while true {
            var clock = timespec()
            clock_gettime(CLOCK_MONOTONIC, &clock)
            let left = deadline - (Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9)
            // Look once even when no time is left: what already came counts.
            var polled = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&polled, 1, left > 0 ? Int32(min(left * 1000, 86_400_000).rounded(.up)) : 0)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR {
                throw TelemetryClientError("cannot read from \(path): \(TelemetrySocket.describe(errno))")
            }
            if left <= 0 { throw TelemetryClientError("no line from \(path) within \(timeout) s") }
        }
    }

    /// Reads what one receive gives into `buffer`; returns how many bytes.
    private func readSome() throws(TelemetryClientError) -> Int {
        let result = chunk.withUnsafeMutableBytes { TelemetrySocket.receive(descriptor, into: $0) }
        switch result {
        case .success(0):
            ended = true
            return 0
        case .success(let count):
            buffer.append(contentsOf: chunk[..<count])
            return count
        case .failure(let error) where error.code == ECONNRESET:
            // The game closed with our commands unread (it refused us): what it sent is all there is.
            ended = true
            return 0
        case .failure(let error):
            throw TelemetryClientError("cannot read from \(path): \(error)")
        }
    }
}
