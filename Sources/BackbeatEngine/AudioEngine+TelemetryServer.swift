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
        let environment = ProcessInfo.processInfo.environment
        let folder =
            environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : "\($0)/backbeat" }
            ?? "/tmp/backbeat-\(getuid())"
        return URL(fileURLWithPath: "\(folder)/\(getpid()).sock")
    }

    /// Opens the server on `url`; its commands are applied to this engine.
    func openTelemetryServer(at url: URL, hello: TelemetryHello) throws -> TelemetryServer {
        throw BackbeatError(
            .monitoringUnavailable, operation: "startMonitoring", url: url, reason: "no socket server in this build")
    }
}

// Until the socket server lands.
extension TelemetryServer {
    func close() {}
}
