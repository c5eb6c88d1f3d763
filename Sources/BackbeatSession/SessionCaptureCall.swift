import BackbeatMedia

/// A call that changed the session, as a capture records it: what the game
/// set, and what came from outside the game (``AudioSession/post(_:)``, the
/// system's route changes, a scripted environment). The engine writes it
/// into the capture being written (see `AudioSession.setCaptureHook`).
package enum SessionCaptureCall: Sendable, Equatable {
    /// ``AudioSession/setCategory(_:options:)`` that succeeded.
    case category(AudioSession.Category, AudioSession.CategoryOptions)
    /// ``AudioSession/setActive(_:)``.
    case active(Bool)
    /// An event from `source`, accepted by the session (an ignored one too).
    case event(SessionEvent, source: SessionEventSource)
    /// ``AudioSession/duck(music:by:attack:release:)`` that passed its checks.
    case duck(hold: MediaTime, decibels: Float, attack: MediaTime, release: MediaTime)
}
