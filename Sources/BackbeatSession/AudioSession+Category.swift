extension AudioSession {
    /// What the game's audio is for, which decides how it shares the machine with other audio.
    public enum Category: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Non-essential sound: mixes with other audio, silenced by the silent switch,
        /// and the game's soundtrack is held back while other audio plays.
        case ambient
        /// The default. Non-essential sound that does not mix: activating asks other
        /// audio to stop; silenced by the silent switch.
        case soloAmbient
        /// Essential sound: not silenced by the silent switch. Activating asks other
        /// audio to stop unless ``CategoryOptions/mixWithOthers`` or
        /// ``CategoryOptions/duckOthers`` is set.
        case playback

        public var description: String { rawValue }
    }
}
