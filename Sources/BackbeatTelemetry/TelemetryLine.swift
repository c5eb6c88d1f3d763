import Foundation

/// One line a game sends a monitor, decoded by its `"type"`.
package enum TelemetryLine: Sendable {
    case hello(TelemetryHello)
    case snapshot(TelemetrySnapshot)
    case event(TelemetryEvent)
    /// `"ok"` or `"error"`: a reply to a command, or the error line a refused client gets.
    case reply(TelemetryReply)
    /// A line of a type this side does not know, or that does not decode
    /// (a newer game's), kept as received.
    case other(String)

    /// Decodes one line.
    ///
    /// - Parameter line: the line, without its newline.
    /// - Returns: the line by type, or ``other(_:)`` with the text for anything unknown.
    package static func decode(_ line: String) -> TelemetryLine {
        let data = Data(line.utf8)
        let decoder = JSONDecoder()
        guard let kind = try? decoder.decode(Kind.self, from: data) else { return .other(line) }
        let decoded: TelemetryLine?
        switch kind.type {
        case "hello": decoded = (try? decoder.decode(TelemetryHello.self, from: data)).map { .hello($0) }
        case "snapshot": decoded = (try? decoder.decode(TelemetrySnapshot.self, from: data)).map { .snapshot($0) }
        case "event": decoded = (try? decoder.decode(TelemetryEvent.self, from: data)).map { .event($0) }
        case "ok", "error": decoded = (try? decoder.decode(TelemetryReply.self, from: data)).map { .reply($0) }
        default: decoded = nil
        }
        return decoded ?? .other(line)
    }

    private struct Kind: Decodable {
        var type: String
    }
}
