/// The engine side that applies the session's decisions: buses, voices, players.
///
/// The session calls these in the order it decided them, one at a time, never
/// while holding its own lock, so an implementation may take the engine lock.
/// Calls can come from any thread that posts an event.
package protocol SessionTarget: AnyObject, Sendable {
    /// Mutes or unmutes every effect without stopping time (silent switch).
    func setEffectsMuted(_ muted: Bool)
    /// Pauses every playing effect where it is, or resumes those it paused (interruption).
    func setEffectsPaused(_ paused: Bool)
    /// Mutes or unmutes the game's own music (the queue player) without stopping
    /// time: silent switch, or held back while other audio plays. Never `MusicPlayer`.
    func setGameMusicMuted(_ muted: Bool)
    /// Mutes or unmutes `MusicPlayer` without stopping time: held back while
    /// other audio plays in an ambient session. It ignores the silent switch.
    func setMusicPlayerHeldBack(_ heldBack: Bool)
    /// Moves every playing music player to `interrupted` and returns those players.
    func markInterrupted(reason: String) -> Set<SessionPlayerID>
    /// Pauses every playing music player where it is (the output went away).
    func pauseMusic(reason: String)
    /// Resumes `players`, interrupted earlier, where they were. A player the game
    /// has stopped or started again since is left alone.
    func resumeMusic(_ players: Set<SessionPlayerID>, reason: String)
    /// Moves `players` from `interrupted` to `paused`.
    func keepMusicPaused(_ players: Set<SessionPlayerID>, reason: String)
    /// Lowers the music bus as `duck` says and restores it, on engine time.
    func duckMusic(_ duck: MusicDuck)
}
