import ArgumentParser
import BackbeatTelemetry
import Foundation

extension MonitorCommand {
    /// How long a game may take to answer one `set`: the reply is due on
    /// its next update step, milliseconds away; a game that does not answer
    /// at all must not hang a script.
    static let replyTimeout = 10.0

    /// `backbeat monitor PID --set KEY=VALUE ...`: sends each change in
    /// order and waits for the game's reply to it. Every assignment is read
    /// before anything is sent, so a typo changes nothing; the first change
    /// the game refuses stops the run (those before it stay made).
    func runSet(pid: Int32, assignments: [String]) throws {
        try failingInOneLine {
            var settings: [TelemetrySetting] = []
            for assignment in assignments {
                do {
                    settings.append(try TelemetrySetting(assignment: assignment))
                } catch {
                    throw MonitorCommandError("--set \(assignment): \(error)")
                }
            }
            let connection = try MonitorConnection(pid: pid)
            for (index, setting) in settings.enumerated() {
                let id = index + 1
                try connection.send(TelemetryCommand(id: id, action: .set(setting)))
                let reply = try Self.reply(to: id, on: connection)
                if reply.type != "ok" {
                    throw MonitorCommandError(
                        "\(setting.key)=\(setting.valueText): \(MonitorScreen.clean(reply.message ?? "refused"))")
                }
            }
        }
    }

    /// Waits for the reply to the command with this id, skipping snapshots and events.
    ///
    /// - Parameters:
    ///   - id: the command's id.
    ///   - connection: the connection it was sent on.
    /// - Returns: the reply.
    /// - Throws: when the game closes the connection or does not answer within ``replyTimeout`` seconds.
    static func reply(to id: Int, on connection: MonitorConnection) throws -> TelemetryReply {
        let giveUp = Date().addingTimeInterval(replyTimeout)
        while Date() < giveUp {
            guard let line = try connection.nextLine(timeout: 0.2) else { continue }
            // A reply without an id answers a line the game could not read at all: ours.
            if case .reply(let reply) = line.kind, reply.id == id || reply.id == nil { return reply }
        }
        throw MonitorCommandError("the game did not answer within \(Int(replyTimeout)) s")
    }
}
