import BackbeatSupport

extension BackbeatError.Code {
    /// The session options do not fit the category: ``AudioSession/CategoryOptions/mixWithOthers``
    /// and ``AudioSession/CategoryOptions/duckOthers`` are valid only with
    /// ``AudioSession/Category/playback``.
    public static let invalidSessionOptions = Self("session options do not fit the category")
}
