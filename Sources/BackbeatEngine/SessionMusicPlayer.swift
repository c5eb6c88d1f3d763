import BackbeatSession

/// A music player as the audio session and the engine's shutdown see it.
///
/// ``QueuePlayer``, ``MusicPlayer`` and ``AdaptiveMusicPlayer`` register themselves with their engine
/// (``AudioEngine/musicPlayers``). Every method is called under the engine
/// lock; each posts its own state-change events.
package protocol SessionMusicPlayer: AnyObject, Sendable {
    /// The player's name for the session.
    var sessionPlayerID: SessionPlayerID { get }
    /// True for the game's own music (``QueuePlayer``), which the silent switch
    /// and "other audio is playing" mute; false for ``MusicPlayer``, which
    /// ignores the silent switch, as the iPod did, and is only held back.
    var isGameMusic: Bool { get }
    /// If playing, pauses where it is and goes to `interrupted`; returns whether it did.
    func sessionInterrupt(reason: String) -> Bool
    /// Pauses where it is if playing (the route went away).
    func sessionPause(reason: String)
    /// Resumes where it was, if still interrupted (the game has not stopped or restarted it).
    func sessionResume(reason: String)
    /// Moves from `interrupted` to `paused`.
    func sessionKeepPaused(reason: String)
    /// Mutes without stopping time (game music only; ``MusicPlayer`` ignores it).
    func setGameMusicMuted(_ muted: Bool)
    /// Mutes without stopping time while other audio plays in an ambient session
    /// (``MusicPlayer`` only; the game's music gets it in ``setGameMusicMuted(_:)``).
    func setHeldBack(_ heldBack: Bool)
    /// Starts an equal-power fade to silence over `frames`, from `frame`.
    func beginShutdownFade(at frame: Int64, frames: Int64)
    /// Ends the player's event streams (the engine is shutting down).
    func finishEventStreams()
    /// Whether it is audible now (worth fading at shutdown).
    var isAudible: Bool { get }
}

/// A weak reference to a registered music player.
struct WeakMusicPlayer {
    package weak var player: (any SessionMusicPlayer)?
}

extension AudioEngine {
    /// Registers a music player for the session and the shutdown fade, with the lock held,
    /// and applies the decision in force: a player made while other audio plays in an
    /// ambient session, or while the silent switch is on, starts held back or muted.
    package func registerMusicPlayerLocked(_ player: any SessionMusicPlayer) {
        preconditionLocked()
        musicPlayers.removeAll { $0.player == nil }
        musicPlayers.append(WeakMusicPlayer(player: player))
        // The session applies its actions without holding its own lock, so reading
        // its decision under the engine lock takes the locks in the one order there is.
        let decision = session.decision
        if player.isGameMusic {
            player.setGameMusicMuted(decision.gameMusicMuted)
        } else {
            player.setHeldBack(decision.gameMusicHeldBack)
        }
    }

    /// The live music players, with the lock held.
    package var liveMusicPlayersLocked: [any SessionMusicPlayer] {
        preconditionLocked()
        return musicPlayers.compactMap(\.player)
    }
}
