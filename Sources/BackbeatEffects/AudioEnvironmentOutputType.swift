/// What the player listens on (AVAudioEnvironmentOutputType), which decides
/// how ``AudioEngine`` renders positioned voices.
public enum AudioEnvironmentOutputType: Sendable, Hashable, CaseIterable {
    /// OpenAL Soft decides: HRTF when the output reports headphones.
    case automatic
    /// Headphones: positioned voices go through an HRTF.
    case headphones
    /// A device's own speakers: equal-power panning, no HRTF.
    case builtInSpeakers
    /// Speakers plugged in: equal-power panning, no HRTF (the default).
    case externalSpeakers
}

/// How a voice is rendered (AVAudio3DMixingRenderingAlgorithm).
///
/// OpenAL Soft 1.19 chooses HRTF or equal-power panning for a whole device,
/// so that choice is the engine's ``AudioEnvironmentOutputType``; a voice
/// chooses between being placed that way and passing its channels through.
public enum AudioRenderingAlgorithm: Sendable, Hashable, CaseIterable {
    /// Placed at its position, or panned while 2D, through HRTF or equal-power
    /// panning as the engine's output type says.
    case automatic
    /// The sound's channels go straight to the outputs (left to left, right
    /// to right, mono to both), unmoved by position, pan, distance or HRTF.
    case stereoPassThrough
}
