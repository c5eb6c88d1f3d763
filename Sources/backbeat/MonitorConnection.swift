import BackbeatTelemetry
import Foundation

/// One connection to a game's monitor socket, as the command's modes use
/// it: the raw lines as they arrive (so `--json` prints them exactly as the
/// game wrote them), each also read as the protocol's types.
final class MonitorConnection {
    /// One line from the game.
    struct Line {
        /// The line as received, without its newline.
        var raw: String
        /// Its `"type"`, nil when it has none.
        var type: String?
        /// The line read as the protocol's types.
        var kind: TelemetryLine
    }

    private let client: TelemetryClient
    /// What the game said first: its process name and protocol version.
    let hello: TelemetryHello

    /// How long a game may take to say hello: it answers from its own
    /// thread at once; this only bounds a game that hangs.
    static let helloTimeout = 10.0

    /// The games that serve a monitor socket now, by PID.
    static func runningGames() -> [RunningGame] {
        TelemetryEndpoint.runningGames()
    }

    /// Connects to the game with this PID and reads its hello.
    ///
    /// - Parameter pid: the game's process id.
    /// - Throws: an error with a one-line message for an unknown PID, a game
    ///   that is not monitoring, one that refuses (too many monitors), or one
    ///   that speaks another version of the protocol.
    init(pid: Int32) throws {
        client = try TelemetryClient(pid: pid)
        let giveUp = Date().addingTimeInterval(Self.helloTimeout)
        var hello: TelemetryHello?
        while hello == nil {
            guard let line = try Self.next(from: client, until: giveUp) else {
                throw MonitorCommandError("PID \(pid) did not say hello within \(Int(Self.helloTimeout)) s")
            }
            switch line.kind {
            case .hello(let said): hello = said
            case .reply(let reply) where reply.type == "error":
                throw MonitorCommandError("PID \(pid) refused: \(MonitorScreen.clean(reply.message ?? "no reason"))")
            default: continue
            }
        }
        guard let hello, hello.version == TelemetryProtocol.version else {
            throw MonitorCommandError(
                "PID \(pid) speaks monitor protocol version \(hello?.version ?? 0); this tool speaks \(TelemetryProtocol.version)"
            )
        }
        self.hello = hello
    }

    /// Sends one command line.
    ///
    /// - Parameter command: the command.
    /// - Throws: when the game closed the connection.
    func send(_ command: TelemetryCommand) throws {
        try client.send(command)
    }

    /// The next line, or nil when none came within `timeout` seconds.
    ///
    /// - Parameter timeout: seconds to wait at most.
    /// - Throws: when the game closed the connection or a read failed.
    func nextLine(timeout: Double) throws -> Line? {
        try Self.next(from: client, until: Date().addingTimeInterval(timeout))
    }

    /// Every line that has come, without waiting (at each tick of the
    /// mode's ``TelemetryReadClock``).
    ///
    /// - Returns: the lines, in order; none when nothing came.
    /// - Throws: when the game closed the connection or a read failed.
    func availableLines() throws -> [Line] {
        guard let lines = try client.availableRawLines() else {
            throw MonitorCommandError("the game closed the connection")
        }
        return lines.map(Self.parse)
    }

    /// The next line before `deadline`, nil when none came in time.
    private static func next(from client: TelemetryClient, until deadline: Date) throws -> Line? {
        let timeout = max(0.001, deadline.timeIntervalSinceNow)
        let raw: String?
        do {
            raw = try client.nextRawLine(timeout: timeout)
        } catch {
            // The client reports a wait that ran out as an error; a wait
            // that ran its full time is that, anything sooner is a failure.
            if Date() >= deadline { return nil }
            throw error
        }
        guard let raw else { throw MonitorCommandError("the game closed the connection") }
        return parse(raw)
    }

    /// Reads one line as the protocol's types.
    ///
    /// - Parameter raw: the line, without its newline.
    /// - Returns: the line, its type and what it is.
    static func parse(_ raw: String) -> Line {
        struct Header: Decodable { var type: String }
        let header = try? JSONDecoder().decode(Header.self, from: Data(raw.utf8))
        return Line(raw: raw, type: header?.type, kind: TelemetryLine.decode(raw))
    }
}
