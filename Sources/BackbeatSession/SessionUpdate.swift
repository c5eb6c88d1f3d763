import BackbeatMedia

/// A decision the session applied, with what caused it, so a game can show
/// "music paused: headphones unplugged".
public struct SessionUpdate: Sendable, Hashable, CustomStringConvertible {
    /// What made the session re-evaluate.
    public enum Cause: Sendable, Hashable, CustomStringConvertible {
        /// An environment event, and who reported it.
        case event(SessionEvent, source: SessionEventSource)
        /// ``AudioSession/setActive(_:)``.
        case activation(Bool)
        /// ``AudioSession/setCategory(_:options:)``.
        case categoryChange(AudioSession.Category, AudioSession.CategoryOptions)
        /// A music player asked to play while an interruption had not ended.
        case playRequest
        /// ``AudioSession/duck(music:by:attack:release:)``.
        case duckRequest

        public var description: String {
            switch self {
            case .event(let event, _): event.description
            case .activation(true): "session activated"
            case .activation(false): "session deactivated"
            case .categoryChange(let category, let options):
                options.isEmpty ? "category changed to \(category)" : "category changed to \(category) \(options)"
            case .playRequest: "play requested during an interruption that never ended"
            case .duckRequest: "duck requested"
            }
        }
    }

    /// What made the session re-evaluate.
    public let cause: Cause
    /// Engine time when it happened.
    public let time: MediaTime
    /// The decision in force after it.
    package let decision: SessionDecision
    /// What was applied, in order. Empty when nothing changed or the event was ignored.
    package let actions: [SessionAction]
    /// Why the cause changed nothing, when it was ignored.
    public let ignoredBecause: String?

    /// One human-readable line, such as `music paused: headphones unplugged`.
    public var reason: String {
        if let ignoredBecause { return "ignored: \(ignoredBecause)" }
        if actions.isEmpty { return "no change: \(cause)" }
        return actions.map(\.description).joined(separator: ", ") + ": \(cause)"
    }

    public var description: String { "\(time.seconds)s \(reason)" }
}
