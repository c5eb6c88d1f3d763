/// What the music player is doing, as the demo shows it.
public enum DrumpadPlaybackState: String, Sendable, Hashable {
    /// Not playing; the queue is rewound.
    case stopped
    /// Playing.
    case playing
    /// Paused by a person (or by the session, for an unplug).
    case paused
    /// Stopped by an interruption (a call).
    case interrupted
    /// Scanning forward or backward.
    case seeking
}
