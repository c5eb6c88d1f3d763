/// Why the audio route changed.
public enum RouteChangeReason: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A new output appeared, such as headphones plugged in. Nothing pauses.
    case newDeviceAvailable
    /// The output in use went away, such as headphones unplugged or the OpenAL
    /// device disconnecting. Music pauses; effects go on.
    case oldDeviceUnavailable
    /// The route changed because a category changed. Nothing pauses.
    case categoryChange

    public var description: String { rawValue }
}
