import BackbeatSupport
import BackbeatTelemetry

/// Live telemetry: what a monitor (`backbeat monitor`) sees of this engine
/// and may change. Off by default; nothing here runs while it is off.
extension AudioEngine {
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
    /// check) when monitoring is off.
    ///
    /// - Parameter event: what happened, stamped by the caller in engine time.
    package func postTelemetryLocked(_ event: @autoclosure () -> TelemetryEvent) {
        guard let server = telemetryServer else { return }
        server.publish(event())
    }
}

/// A weak reference, so contributors die with their owners.
struct WeakTelemetryContributor {
    weak var contributor: (any TelemetryContributor)?
}
