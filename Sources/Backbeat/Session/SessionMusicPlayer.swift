/// A music player as the session sees it: the engine's session target pauses,
/// interrupts, resumes and mutes players through this, and nothing else.
///
/// The queue player is the game's own music (muted by the silent switch and
/// held back under other audio in ambient sessions); `MusicPlayer` is not.
protocol SessionMusicPlayer: AnyObject, Sendable {
    /// The player's identity to the session.
    var sessionID: SessionPlayerID { get }
    /// Whether this is the game's own music rather than a music player.
    var isGameMusic: Bool { get }
    /// Whether it is playing now.
    var isPlayingForSession: Bool { get }
    /// Pauses where it is; `interrupted` moves it to the interrupted state.
    func sessionPause(interrupted: Bool, reason: String)
    /// Resumes where it was, if it is still interrupted or session-paused.
    func sessionResume(reason: String)
    /// Moves it from interrupted to paused.
    func sessionKeepPaused(reason: String)
    /// Mutes it without stopping time (game music only).
    func setSessionMuted(_ muted: Bool)
}
