/// What a session asks of other programs' audio.
package enum OtherAudioRequest: String, Sendable, Hashable, CustomStringConvertible {
    /// Leave it alone: the game mixes with it.
    case mix
    /// Ask it to lower its level while the session is active.
    case duck
    /// Ask it to stop.
    case interrupt

    package var description: String { rawValue }
}
