import BackbeatSupport
import BackbeatTelemetry

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where the engine's monitor socket lives, and the server that serves it.
extension AudioEngine {
    /// The socket ``startMonitoring()`` serves for this process.
    static func defaultMonitorSocket() -> URL {
        URL(fileURLWithPath: TelemetryEndpoint.socketPath(pid: getpid()))
    }

    /// Opens the server on `url`; the commands its clients send are applied
    /// to this engine (held weakly: the server never keeps it alive).
    func openTelemetryServer(at url: URL, hello: TelemetryHello) throws -> TelemetryServer {
        let reference = WeakEngine(self)
        do {
            return try TelemetryServer(path: url.path, hello: hello) { command in
                guard let engine = reference.engine else {
                    return .error("the engine has shut down", id: command.id)
                }
                return engine.reply(to: command)
            }
        } catch {
            throw BackbeatError(
                .monitoringUnavailable, operation: "startMonitoring", url: url, reason: error.description)
        }
    }

    /// Runs a client's command and says how it went (on the server's thread).
    private func reply(to command: TelemetryCommand) -> TelemetryReply {
        switch command.action {
        case .set(let setting):
            switch applyTelemetry(setting) {
            case .success: return .ok(id: command.id)
            case .failure(let error): return .error(error.message, id: command.id)
            }
        case .rate:
            // The server answers rates itself; one reaching here changes nothing.
            return .ok(id: command.id)
        case .reload:
            guard let outcomes = reloadChangedFiles() else {
                return .error("the reload did not finish within 8 s", id: command.id)
            }
            var reply = TelemetryReply.ok(id: command.id)
            reply.lines = outcomes.map(\.description)
            return reply
        }
    }
}
