extension BackbeatError.Code {
    /// The file does not exist.
    public static let fileNotFound = Self("file not found")
    /// The file exists but could not be decoded.
    public static let unreadableFile = Self("unreadable file")
    /// The sound has no frames.
    public static let emptySound = Self("sound has no frames")
    /// The sound is larger than the whole effect cache budget.
    public static let cacheBudgetExceeded = Self("sound exceeds the cache budget")
    /// The voice has already finished; start a new one with `play()`.
    public static let voiceFinished = Self("voice has finished")
}
