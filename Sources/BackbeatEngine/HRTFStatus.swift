import BackbeatOpenAL

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
    /// On because the output reports headphones (the output type `.automatic`).
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
