/// The state of the world around the game's audio, as the session last heard it.
public struct SessionEnvironment: Sendable, Hashable {
    /// Whether an interruption began and has not ended.
    public var isInterrupted: Bool
    /// Whether the silent switch is on.
    public var isSilentSwitchOn: Bool
    /// The names of the other programs playing audio, in the order they started.
    public var otherAudio: [String]
    /// The output in use.
    public var currentRoute: AudioRoute
    /// The output before the last route change, if there was one.
    public var previousRoute: AudioRoute?

    /// Creates an environment; the defaults describe a quiet machine.
    ///
    /// - Parameters:
    ///   - isInterrupted: Whether an interruption (a call, an alarm) is under way.
    ///   - isSilentSwitchOn: Whether the silent switch is on.
    ///   - otherAudio: The names of other programs playing audio now.
    ///   - currentRoute: The output in use.
    ///   - previousRoute: The output before the last route change, if there was one.
    public init(
        isInterrupted: Bool = false, isSilentSwitchOn: Bool = false, otherAudio: [String] = [],
        currentRoute: AudioRoute = .defaultOutput, previousRoute: AudioRoute? = nil
    ) {
        self.isInterrupted = isInterrupted
        self.isSilentSwitchOn = isSilentSwitchOn
        self.otherAudio = otherAudio
        self.currentRoute = currentRoute
        self.previousRoute = previousRoute
    }

    /// Whether any other program is playing audio.
    public var isOtherAudioPlaying: Bool { !otherAudio.isEmpty }
}
