/// Who reported a ``SessionEvent``.
public enum SessionEventSource: String, Sendable, Hashable, CustomStringConvertible {
    /// The host game, through ``AudioSession/post(_:)``.
    case hostGame
    /// A `ScriptedEnvironment`.
    case script
    /// The system, where Linux gives a signal (the OpenAL device disconnecting).
    case system

    public var description: String { rawValue }
}
