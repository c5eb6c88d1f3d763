/// The game's side of the monitor protocol: a Unix domain socket that
/// serves snapshots and event lines to monitor clients and takes their
/// commands. (Placeholder shape; the server itself is being built.)
package final class TelemetryServer: @unchecked Sendable {
    /// The highest snapshot rate a connected client asked for, 0 when no
    /// client is connected: the engine's update step reads it to know
    /// whether (and how often) to build a snapshot.
    package var requestedRate: Int { 0 }

    /// Hands a snapshot to the clients that are due one.
    ///
    /// - Parameter snapshot: the snapshot, built under the engine lock.
    package func publish(_ snapshot: TelemetrySnapshot) {}

    /// Hands an event line to every client.
    ///
    /// - Parameter event: what happened.
    package func publish(_ event: TelemetryEvent) {}
}
