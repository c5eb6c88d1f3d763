/// A running process that serves a monitor socket, as `backbeat monitor` lists it.
package struct RunningGame: Sendable, Equatable {
    /// The process id.
    package var pid: Int32
    /// The process name, as `/proc/PID/comm` gives it (at most 15 bytes).
    package var process: String
    /// Seconds since the process started.
    package var uptime: Double
    /// The monitor socket's path.
    package var path: String

    /// A game as listed.
    ///
    /// - Parameters:
    ///   - pid: the process id.
    ///   - process: its name.
    ///   - uptime: seconds since it started.
    ///   - path: its monitor socket.
    package init(pid: Int32, process: String, uptime: Double, path: String) {
        self.pid = pid
        self.process = process
        self.uptime = uptime
        self.path = path
    }
}
