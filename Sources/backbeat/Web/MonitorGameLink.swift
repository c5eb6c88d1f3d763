import BackbeatTelemetry
import Synchronization

/// The web monitor's one connection to the game's monitor socket: lines
/// read on one thread, command lines sent from the pages' tasks.
final class MonitorGameLink: @unchecked Sendable {
    // Safe: the client reads on one thread only (the tool's reader, through
    // `nextLine` and then `availableLines`), sends only under `sending`, and a send touches no state a
    // read changes (the descriptor alone, which only `close()` changes, and
    // nothing here calls it before the reader has ended).
    private let client: TelemetryClient
    private let sending = Mutex(())

    /// Connects to the game `pid`.
    ///
    /// - Parameter pid: the game's process id.
    /// - Throws: `TelemetryClientError` in one line: no such process, or not monitoring.
    init(pid: Int32) throws {
        client = try TelemetryClient(pid: pid)
    }

    /// The next line from the game, as received, waiting for it (the hello);
    /// nil once the game closed the connection.
    ///
    /// - Throws: `TelemetryClientError` when the connection fails (the game is gone too).
    func nextLine() throws -> String? {
        try client.nextRawLine(timeout: nil)
    }

    /// Every line that has come, as received, without waiting: the reader
    /// takes them on the ticks of its `TelemetryReadClock`.
    ///
    /// - Returns: the lines (none when nothing came); nil once the game closed the connection.
    /// - Throws: `TelemetryClientError` when the connection fails (the game is gone too).
    func availableLines() throws -> [String]? {
        try client.availableRawLines()
    }

    /// Sends one command line.
    ///
    /// - Parameter line: the command, without its newline.
    /// - Throws: `TelemetryClientError` when the game no longer reads.
    func send(_ line: String) throws {
        try sending.withLock { _ in try client.send(line: line) }
    }
}
