import Synchronization

/// Names one music player to the session, so it can remember which players an
/// interruption stopped and resume exactly those.
struct SessionPlayerID: Hashable, Sendable, CustomStringConvertible {
    let rawValue: UInt64

    private static let counter = Atomic<UInt64>(0)

    /// A new identifier, unique in this process.
    static func next() -> SessionPlayerID {
        SessionPlayerID(rawValue: counter.add(1, ordering: .relaxed).newValue)
    }

    var description: String { "player \(rawValue)" }
}
