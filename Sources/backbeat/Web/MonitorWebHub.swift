import BackbeatTelemetry
import Foundation
import Synchronization

/// What the web monitor's pages share: the one connection to the game fans
/// out to every page's WebSocket here, and each page's commands come back
/// through it.
///
/// The game's lines go to every page as they are, except replies: a page's
/// command goes to the game under an id of the tool's own, so the reply
/// goes back to the page that sent it, with that page's id restored.
final class MonitorWebHub: Sendable {
    /// Lines held for a page that reads slowly; older ones are dropped, so a
    /// stalled browser costs the tool bounded memory and never holds up the game.
    static let pageBufferLines = 256

    /// Commands awaiting the game's reply, at most.
    static let maximumPending = 1024

    private let state = Mutex(State())

    private struct State {
        var pages: [Int: AsyncStream<String>.Continuation] = [:]
        var nextPage = 0
        /// The game's hello line, which every page gets first.
        var hello: String?
        /// Commands on their way to the game, by the tool's id: the page and its own id.
        var pending: [Int: (page: Int, id: Int?)] = [:]
        var nextCommand = 1
        /// Once set, the game is gone: this line is the last every page reads.
        var goodbye: String?
    }

    /// A new page's stream of lines: the game's hello (once it came), then
    /// every line from now on, and the goodbye line last when the game goes.
    ///
    /// - Returns: the page's number (for ``command(_:from:)`` and ``leave(_:)``) and its lines.
    func join() -> (page: Int, lines: AsyncStream<String>) {
        let (stream, continuation) = AsyncStream.makeStream(
            of: String.self, bufferingPolicy: .bufferingNewest(Self.pageBufferLines))
        let page = state.withLock { state -> Int in
            state.nextPage += 1
            if let hello = state.hello { continuation.yield(hello) }
            if let goodbye = state.goodbye {
                continuation.yield(goodbye)
                continuation.finish()
            } else {
                state.pages[state.nextPage] = continuation
            }
            return state.nextPage
        }
        return (page, stream)
    }

    /// Forgets a page whose socket closed.
    ///
    /// - Parameter page: the number ``join()`` gave it.
    func leave(_ page: Int) {
        let continuation = state.withLock { state in
            state.pending = state.pending.filter { $0.value.page != page }
            return state.pages.removeValue(forKey: page)
        }
        continuation?.finish()
    }

    /// Hands one of the game's lines to the pages: a reply to the page whose
    /// command it answers, anything else to all.
    ///
    /// - Parameter line: one line from the game, without its newline.
    func publish(_ line: String) {
        if let reply = Self.reply(in: line) {
            let target = state.withLock { state -> (AsyncStream<String>.Continuation, Int?)? in
                guard let id = reply.id, let sender = state.pending.removeValue(forKey: id) else { return nil }
                return state.pages[sender.page].map { ($0, sender.id) }
            }
            if let (page, id) = target {
                var restored = reply
                restored.id = id
                page.yield(Self.encode(restored))
                return
            }
        }
        let pages = state.withLock { state -> [AsyncStream<String>.Continuation] in
            if state.hello == nil, line.contains("\"hello\"") { state.hello = line }
            return Array(state.pages.values)
        }
        for page in pages { page.yield(line) }
    }

    /// Takes a page's WebSocket message as a command. A bad one gets an
    /// error reply on that page's socket and goes nowhere.
    ///
    /// - Parameters:
    ///   - text: the message, one protocol command (``TelemetryCommand``).
    ///   - page: the number ``join()`` gave the sending page.
    /// - Returns: the line to send to the game (the command under the tool's
    ///   own id), or nil when the command was refused here.
    func command(_ text: String, from page: Int) -> String? {
        let command: TelemetryCommand
        do {
            command = try TelemetryCommand(line: Array(text.utf8))
        } catch {
            reply(.error(error.message, id: Self.pageID(in: text)), to: page)
            return nil
        }
        return state.withLock { state -> String? in
            guard state.goodbye == nil else { return nil }
            let id = state.nextCommand
            state.nextCommand += 1
            state.pending[id] = (page, command.id)
            // A game answers every command; should one not, its entry goes once far behind.
            if state.pending.count > Self.maximumPending {
                state.pending = state.pending.filter { $0.key > id - Self.maximumPending }
            }
            var forwarded = command
            forwarded.id = id
            return forwarded.line
        }
    }

    /// Answers a page directly (a command the tool could not deliver).
    ///
    /// - Parameters:
    ///   - reply: the reply, with the page's own id.
    ///   - page: the page's number.
    func reply(_ reply: TelemetryReply, to page: Int) {
        let continuation = state.withLock { $0.pages[page] }
        continuation?.yield(Self.encode(reply))
    }

    /// The game is gone: every page reads `line` last and its stream ends.
    ///
    /// - Parameter line: the goodbye line (``goodbye(_:)``).
    func finish(with line: String) {
        let pages = state.withLock { state -> [AsyncStream<String>.Continuation] in
            state.goodbye = line
            defer { state.pages.removeAll() }
            return Array(state.pages.values)
        }
        for page in pages {
            page.yield(line)
            page.finish()
        }
    }

    /// The line that tells a page the game went away: `{"type":"gone","message":...}`.
    ///
    /// - Parameter message: one line saying why.
    static func goodbye(_ message: String) -> String {
        let data = try? JSONSerialization.data(
            withJSONObject: ["type": "gone", "message": message], options: [.sortedKeys])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? #"{"type":"gone"}"#
    }

    /// The reply in a line, if the line is one (`"ok"` or `"error"`); snapshots
    /// and events are told apart by a substring search, not decoded.
    private static func reply(in line: String) -> TelemetryReply? {
        guard line.contains("\"ok\"") || line.contains("\"error\""), !line.contains("\"snapshot\"") else {
            return nil
        }
        guard let reply = try? JSONDecoder().decode(TelemetryReply.self, from: Data(line.utf8)),
            reply.type == "ok" || reply.type == "error"
        else { return nil }
        return reply
    }

    /// The `id` of a command that could not be read as a whole, if it has one.
    private static func pageID(in text: String) -> Int? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            return nil
        }
        return object["id"] as? Int
    }

    private static func encode(_ reply: TelemetryReply) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(reply)).map { String(decoding: $0, as: UTF8.self) } ?? #"{"type":"error"}"#
    }
}
