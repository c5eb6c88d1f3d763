import ArgumentParser
import BackbeatTelemetry
import Foundation

extension MonitorCommand {
    /// `backbeat monitor PID --reload`: asks the game to reload every bank
    /// and sound whose file changed since it was loaded (followed or not),
    /// and prints one line per file reloaded or failed (a failed one keeps
    /// its old content in the game). Exits 0 once the game has answered,
    /// 1 when it is not there or refuses.
    func runReload(pid: Int32) throws {
        try failingInOneLine {
            let connection = try MonitorConnection(pid: pid)
            try connection.send(TelemetryCommand(id: 1, action: .reload))
            let reply = try Self.reply(to: 1, on: connection)
            guard reply.type == "ok" else {
                throw MonitorCommandError("reload: \(MonitorScreen.clean(reply.message ?? "refused"))")
            }
            let lines = reply.lines ?? []
            if lines.isEmpty { print("no bank or sound file changed") }
            for line in lines { print(MonitorScreen.clean(line)) }
        }
    }

    /// Runs a mode, turning its failure into one line on standard error and exit status 1.
    ///
    /// - Parameter body: the mode.
    func failingInOneLine(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            printError(error)
            throw ExitCode.failure
        }
    }
}
