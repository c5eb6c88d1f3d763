import BackbeatCapture

/// The record kinds of the audio session (``CaptureKind/sessionRange``),
/// written by the engine where the session's calls enter it
/// (`AudioEngine+SessionCapture.swift`): what the game set, and the events
/// from outside the game (interruptions, route changes, other audio, the
/// silent switch), which a replay posts again at the same engine frame.
extension CaptureKind {
    /// `AudioSession.setCategory(_:options:)`. Payload: the category's raw
    /// value (String), the options' raw value (`UInt64`).
    package static let sessionCategory = CaptureKind(0x300)
    /// `AudioSession.setActive(_:)`. Payload: Bool.
    package static let sessionActive = CaptureKind(0x301)
    /// A session event. Payload: its source's raw value (String), then the
    /// event (``SessionCaptureValues``): a case number and its values.
    package static let sessionEvent = CaptureKind(0x302)
    /// `AudioSession.duck(music:by:attack:release:)`. Payload: hold (time),
    /// decibels (Float), attack (time), release (time).
    package static let sessionDuck = CaptureKind(0x303)
}
