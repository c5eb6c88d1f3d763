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

/// Live telemetry: what a monitor (`backbeat monitor`) sees of this engine
/// and may change. Off by default; nothing here runs while it is off.
extension AudioEngine {
    /// Starts serving this engine to monitors (`backbeat monitor PID`) on a
    /// private Unix socket, `$XDG_RUNTIME_DIR/backbeat/PID.sock` (or
    /// `/tmp/backbeat-UID/PID.sock`), readable by this user only. While no
    /// monitor is attached it costs the update step one check. Calling it
    /// again while monitoring returns the same socket. Starting the game with
    /// `BACKBEAT_MONITOR=1` in its environment does the same without code.
    ///
    /// - Returns: The socket's location.
    /// - Throws: ``BackbeatError/Code/monitoringUnavailable`` when another
    ///   engine in this process already monitors, or the socket cannot be
    ///   made; ``BackbeatError/Code/engineShutDown`` after shutdown.
    @discardableResult
    public func startMonitoring() throws -> URL {
        try startMonitoring(socketPath: Self.defaultMonitorSocket())
    }

    /// ``startMonitoring()`` on a socket of the caller's choosing (tests).
    ///
    /// - Parameter socketPath: Where to serve the socket.
    /// - Returns: The socket's location: `socketPath`, or the socket already served.
    /// - Throws: What ``startMonitoring()`` throws.
    @discardableResult
    package func startMonitoring(socketPath: URL) throws -> URL {
        let operation = "startMonitoring"
        if let served = try withLock(
            waking: false,
            { () throws -> URL? in
                try checkUsable(operation)
                return monitoring.socketURL
            })
        {
            return served
        }
        let path = socketPath.path
        guard EngineMonitoring.socketsInUse.withLockedValue({ $0.insert(path).inserted }) else {
            throw BackbeatError(
                .monitoringUnavailable, operation: operation, url: socketPath,
                reason: "another engine in this process already monitors on this socket")
        }
        let server: TelemetryServer
        do {
            server = try openTelemetryServer(at: socketPath, hello: telemetryHello)
        } catch {
            _ = EngineMonitoring.socketsInUse.withLockedValue { $0.remove(path) }
            if let error = error as? BackbeatError { throw error }
            throw BackbeatError(.monitoringUnavailable, operation: operation, url: socketPath, reason: "\(error)")
        }
        let raced = withLock { () -> Bool in
            guard monitoring.socketURL == nil, isRunningLocked else { return true }
            beginMonitoringLocked()
            monitoring.socketURL = socketPath
            telemetryServer = server
            return false
        }
        if raced {
            // Another thread started monitoring meanwhile, or the engine shut down.
            server.close()
            _ = EngineMonitoring.socketsInUse.withLockedValue { $0.remove(path) }
            return try withLock(waking: false) {
                try checkUsable(operation)
                return monitoring.socketURL ?? socketPath
            }
        }
        return socketPath
    }

    /// Stops serving monitors and removes the socket. Does nothing when not
    /// monitoring; ``shutdown()`` calls it.
    public func stopMonitoring() {
        let stopped = withLock(waking: false) { () -> (TelemetryServer?, URL?) in
            defer {
                telemetryServer = nil
                monitoring = EngineMonitoring(underruns: monitoring.underruns)
            }
            return (telemetryServer, monitoring.socketURL)
        }
        // Closed outside the lock: the server's thread may be waiting for it to apply a command.
        // It removes the socket file.
        stopped.0?.close()
        if let url = stopped.1 {
            _ = EngineMonitoring.socketsInUse.withLockedValue { $0.remove(url.path) }
        }
    }

    /// Whether this engine serves monitors (``startMonitoring()``).
    public var isMonitoring: Bool { withLock(waking: false) { monitoring.socketURL != nil } }

    /// Whether monitoring is on: a layer above keeps what a snapshot reports
    /// (a music stream's level) only then.
    package var isMonitoringLocked: Bool {
        preconditionLocked()
        return monitoring.isOn
    }

    /// Turns monitoring's bookkeeping on with no socket (tests, benchmarks):
    /// levels are kept from now on, for ``telemetrySnapshotLocked()``.
    package func beginMonitoringLocked() {
        preconditionLocked()
        guard !monitoring.isOn else { return }
        monitoring.isOn = true
        monitoring.lastSnapshotFrame = currentFrameLocked
        monitoring.stepCPUNanoseconds = 0
    }

    /// Starts monitoring when `environment` asks (`BACKBEAT_MONITOR=1`); a
    /// failure is a warning through the `backbeat` logger, never an error.
    ///
    /// - Parameters:
    ///   - environment: The process's environment, or a test's.
    ///   - socketPath: The socket to serve; nil: the default for this process.
    package func startMonitoringIfAsked(environment: [String: String], socketPath: URL? = nil) {
        guard let value = environment["BACKBEAT_MONITOR"], !["", "0", "no", "off", "false"].contains(value)
        else { return }
        do {
            try startMonitoring(socketPath: socketPath ?? Self.defaultMonitorSocket())
        } catch {
            withLock(waking: false) {
                logLocked(
                    .warning, "BACKBEAT_MONITOR is set but monitoring could not start: \(error)",
                    key: "monitor", problem: "monitorFailed")
            }
            deliverPendingEvents()
        }
    }

    /// Lets a layer above the engine show itself to a monitor and take the
    /// monitor's changes (held weakly).
    ///
    /// - Parameter contributor: the voice pool's or a music player's part.
    package func addTelemetryContributor(_ contributor: any TelemetryContributor) {
        withLock(waking: false) { addTelemetryContributorLocked(contributor) }
    }

    /// ``addTelemetryContributor(_:)`` with the lock held: for a part made
    /// under the lock, as the effects' state is on first use.
    ///
    /// - Parameter contributor: the voice pool's or a music player's part.
    package func addTelemetryContributorLocked(_ contributor: any TelemetryContributor) {
        preconditionLocked()
        telemetryContributors.removeAll { $0.contributor == nil }
        telemetryContributors.append(WeakTelemetryContributor(contributor: contributor))
    }

    /// Sends an event line to attached monitors; does nothing (one nil
    /// check) when monitoring is off, and builds no event (one atomic load
    /// more) while no monitor is attached.
    ///
    /// - Parameter event: what happened, stamped by the caller in engine time.
    package func postTelemetryLocked(_ event: @autoclosure () -> TelemetryEvent) {
        guard let server = telemetryServer, server.clientCount > 0 else { return }
        server.publish(event())
    }

    /// Counts a music stream's underrun (the snapshots' `underruns`).
    package func countUnderrunLocked() {
        preconditionLocked()
        monitoring.underruns += 1
    }

    /// Engine time in seconds, for event lines.
    package var telemetryTimeLocked: Double {
        Double(currentFrameLocked) / Double(sampleRate)
    }

    /// `"offline"`, `"file"` or `"device"`, as the protocol names outputs.
    var outputKind: String {
        switch output {
        case .offline: "offline"
        case .file: "file"
        case .device: "device"
        }
    }

    private var telemetryHello: TelemetryHello {
        TelemetryHello(
            pid: getpid(), process: ProcessInfo.processInfo.processName, output: outputKind, sampleRate: sampleRate)
    }
}

/// A weak reference, so contributors die with their owners.
struct WeakTelemetryContributor {
    weak var contributor: (any TelemetryContributor)?
}
