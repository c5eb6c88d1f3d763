import BackbeatMedia
import BackbeatSession

/// Applies the session's decisions to this engine: the effects bus for
/// effects, the registered music players (``AudioEngine/liveMusicPlayersLocked``)
/// for music. Nothing else decides.
final class EngineSessionTarget: SessionTarget, @unchecked Sendable {
    // @unchecked: `engine` is set once while the engine initialises, before
    // the session can call; every call below runs under the engine lock.
    weak var engine: AudioEngine?

    init(engine: AudioEngine?) { self.engine = engine }

    /// Runs `body` on the live players under the engine lock, then delivers
    /// the state events the players posted.
    private func withPlayers<T>(_ body: ([any SessionMusicPlayer]) -> T) -> T? {
        guard let engine else { return nil }
        defer { engine.deliverPendingEvents() }
        return engine.withLock { body(engine.liveMusicPlayersLocked) }
    }

    func setEffectsMuted(_ muted: Bool) {
        guard let engine else { return }
        engine.withLock { engine.effectsBus.sessionMuted = muted }
    }

    func setEffectsPaused(_ paused: Bool) {
        guard let engine else { return }
        engine.withLock { engine.effectsBus.sessionPaused = paused }
    }

    func setGameMusicMuted(_ muted: Bool) {
        withPlayers { players in for player in players where player.isGameMusic { player.setGameMusicMuted(muted) } }
    }

    func setMusicPlayerHeldBack(_ heldBack: Bool) {
        withPlayers { players in for player in players where !player.isGameMusic { player.setHeldBack(heldBack) } }
    }

    func markInterrupted(reason: String) -> Set<SessionPlayerID> {
        withPlayers { players in
            Set(players.filter { $0.sessionInterrupt(reason: reason) }.map(\.sessionPlayerID))
        } ?? []
    }

    func pauseMusic(reason: String) {
        withPlayers { players in for player in players { player.sessionPause(reason: reason) } }
    }

    func resumeMusic(_ ids: Set<SessionPlayerID>, reason: String) {
        withPlayers { players in
            for player in players where ids.contains(player.sessionPlayerID) { player.sessionResume(reason: reason) }
        }
    }

    func keepMusicPaused(_ ids: Set<SessionPlayerID>, reason: String) {
        withPlayers { players in
            for player in players where ids.contains(player.sessionPlayerID) {
                player.sessionKeepPaused(reason: reason)
            }
        }
    }

    func duckMusic(_ duck: MusicDuck) {
        guard let engine else { return }
        let rate = engine.sampleRate
        engine.withLock {
            let start = duck.start.frames(atSampleRate: rate)
            engine.musicBus.duck(
                gain: duck.gain, startFrame: start,
                attackFrames: duck.attack.frames(atSampleRate: rate),
                holdFrames: duck.hold.frames(atSampleRate: rate),
                releaseFrames: duck.release.frames(atSampleRate: rate))
        }
    }
}

/// Engine time for the session, readable before the engine finishes initialising.
final class EngineClock: @unchecked Sendable {
    // @unchecked: `engine` is set once during the engine's init, before any session call.
    weak var engine: AudioEngine?
    var now: MediaTime { engine?.currentTime ?? .zero }
}
