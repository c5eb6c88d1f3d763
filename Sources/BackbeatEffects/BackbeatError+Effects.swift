import BackbeatSupport

extension BackbeatError.Code {
    /// The sound has no frames.
    public static let emptySound = Self("sound has no frames")
    /// The sound is larger than the whole effect cache budget.
    public static let cacheBudgetExceeded = Self("sound exceeds the cache budget")
    /// The voice has already finished; start a new one with `play()`.
    public static let voiceFinished = Self("voice has finished")
}

extension BackbeatError.Code {
    /// A sound event was made without sounds, with sounds of different engines, or with bad weights.
    public static let invalidSoundEvent = Self("invalid sound event")
    /// A mix snapshot names a bus the engine has no bus by.
    public static let unknownBus = Self("unknown bus")
}
