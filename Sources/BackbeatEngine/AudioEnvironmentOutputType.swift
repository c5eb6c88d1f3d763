import BackbeatOpenAL

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

/// Why an engine renders positioned voices through an HRTF or not
/// (OpenAL Soft's ALC_HRTF_STATUS_SOFT).
public enum HRTFStatus: Sendable, Hashable {
    /// Off, as asked (or by default).
    case disabled
    /// On, as asked.
    case enabled
    /// Asked for, but the user's OpenAL Soft configuration forbids it.
    case denied
    /// On because the user's OpenAL Soft configuration requires it.
    case required
    /// On because the output reports headphones (``AudioEnvironmentOutputType/automatic``).
    case headphonesDetected
    /// Asked for, but the output format cannot carry it (not stereo, or no
    /// data set for its sample rate).
    case unsupportedFormat
}

extension HRTFStatus {
    package init(_ status: ALDevice.HRTFStatus) {
        self =
            switch status {
            case .disabled: .disabled
            case .enabled: .enabled
            case .denied: .denied
            case .required: .required
            case .headphonesDetected: .headphonesDetected
            case .unsupportedFormat: .unsupportedFormat
            }
    }
}
