import Foundation
import Glibc

/// The web monitor's one connection to the game's monitor socket: lines in,
/// command lines out. (Stand-in until the protocol's client lands.)
final class MonitorGameLink: @unchecked Sendable {
    // Safe: `descriptor` is set once; reads happen on one thread, writes under `writeLock`.
    private let descriptor: Int32
    private let writeLock = NSLock()
    private var pending: [UInt8] = []

    /// Connects to the game `pid`.
    ///
    /// - Parameter pid: the game's process id.
    /// - Throws: ``MonitorWebError`` in one line: no such process, or not monitoring.
    init(pid: Int32) throws {
        guard pid > 0, kill(pid, 0) == 0 || errno == EPERM else {
            throw MonitorWebError("no process with PID \(pid)")
        }
        let environment = ProcessInfo.processInfo.environment
        let folder =
            environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 + "/backbeat" }
            ?? "/tmp/backbeat-\(geteuid())"
        let path = folder + "/\(pid).sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw MonitorWebError("cannot make a socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw MonitorWebError("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard rc == 0 else {
            close(fd)
            throw MonitorWebError("PID \(pid) is not monitoring: no socket at \(path)")
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// The next line from the game, without its newline; nil once the game closed the connection.
    func nextLine() -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            pending.append(contentsOf: chunk[..<count])
        }
    }

    /// Sends one command line.
    ///
    /// - Parameter line: the command, without its newline.
    /// - Throws: ``MonitorWebError`` when the game no longer reads.
    func send(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        try writeLock.withLock {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes {
                    Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { throw MonitorWebError("the game stopped reading commands") }
                offset += sent
            }
        }
    }

    /// Ends the connection, so that a thread blocked in ``nextLine()`` returns nil.
    func shutDown() { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
}
