import BackbeatSupport

/// Names one music player to the session, so it can remember which players an
/// interruption stopped and resume exactly those.
package struct SessionPlayerID: Hashable, Sendable, CustomStringConvertible {
    let rawValue: UInt64

    /// A new identifier, unique in this process.
    package static func next() -> SessionPlayerID {
        SessionPlayerID(rawValue: UniqueID.next())
    }

    package var description: String { "player \(rawValue)" }
}
