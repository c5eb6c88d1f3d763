import BackbeatSupport
import Dispatch

extension AudioEngine {
    /// The engine's record of the files banks and sounds were loaded from,
    /// made on first use. With the lock held.
    package var fileWatchLocked: EngineFileWatch {
        preconditionLocked()
        if let watch = fileWatchStorage { return watch }
        let watch = EngineFileWatch(engine: self)
        fileWatchStorage = watch
        return watch
    }

    /// Whether this engine serves monitors (``isMonitoring``), with the lock
    /// held: what a bank's or sound's `reloadsWhenChanged` follows by default.
    package var isServingMonitorsLocked: Bool {
        preconditionLocked()
        return monitoring.socketURL != nil
    }

    /// Reloads every bank and sound whose file changed since it was loaded,
    /// followed or not, and waits for them (a monitor's `reload`, on the
    /// server's thread; never the update thread).
    ///
    /// - Parameter timeout: How long to wait for the reloads, in seconds.
    /// - Returns: One outcome per file reloaded or failed, or nil when they
    ///   did not all finish within `timeout`.
    package func reloadChangedFiles(timeout: Double = 8) -> [FileReloadOutcome]? {
        let finished = DispatchSemaphore(value: 0)
        let result = LockedValueBox<[FileReloadOutcome]>([])
        withLock {
            fileWatchLocked.reloadChangedLocked { outcomes in
                result.withLockedValue { $0 = outcomes }
                finished.signal()
            }
        }
        deliverPendingEvents()
        guard finished.wait(timeout: .now() + timeout) == .success else { return nil }
        return result.withLockedValue { $0 }
    }
}
