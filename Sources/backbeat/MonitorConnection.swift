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
        var kind: Kind
    }

    enum Kind {
        case hello(TelemetryHello)
        case snapshot(TelemetrySnapshot)
        case event(TelemetryEvent)
        case reply(TelemetryReply)
        /// A line of a type this tool does not know (a newer game's), or one it could not read.
        case other
    }

    /// The games that serve a monitor socket now.
    static func runningGames() -> [(pid: Int32, process: String, uptime: Double)] {
        []
    }

    /// Connects to the game with this PID.
    ///
    /// - Parameter pid: the game's process id.
    /// - Throws: an error with a one-line message for an unknown PID or a game that is not monitoring.
    init(pid: Int32) throws {
        throw MonitorCommandError("no game with PID \(pid) is monitoring (the monitor client is not built yet)")
    }

    /// Sends one command line.
    ///
    /// - Parameter command: the command.
    func send(_ command: TelemetryCommand) throws {}

    /// The next line, or nil when none came within `timeout` seconds.
    ///
    /// - Parameter timeout: seconds to wait at most.
    /// - Throws: when the game closed the connection.
    func nextLine(timeout: Double) throws -> Line? { nil }

    /// Reads one line as the protocol's types.
    ///
    /// - Parameter raw: the line, without its newline.
    /// - Returns: the line and what it is.
    static func parse(_ raw: String) -> Line {
        struct Header: Decodable { var type: String }
        let data = Data(raw.utf8)
        let decoder = JSONDecoder()
        guard let header = try? decoder.decode(Header.self, from: data) else {
            return Line(raw: raw, type: nil, kind: .other)
        }
        let kind: Kind? =
            switch header.type {
            case "hello": (try? decoder.decode(TelemetryHello.self, from: data)).map { .hello($0) }
            case "snapshot": (try? decoder.decode(TelemetrySnapshot.self, from: data)).map { .snapshot($0) }
            case "event": (try? decoder.decode(TelemetryEvent.self, from: data)).map { .event($0) }
            case "ok", "error": (try? decoder.decode(TelemetryReply.self, from: data)).map { .reply($0) }
            default: nil
            }
        return Line(raw: raw, type: header.type, kind: kind ?? .other)
    }
}
