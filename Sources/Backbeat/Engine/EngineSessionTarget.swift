/// Applies the session's decisions to this engine: the effects bus for
/// effects, registered players for music. Nothing else decides.
final class EngineSessionTarget: SessionTarget, @unchecked Sendable {
    // @unchecked: `players` is read and written only under the engine lock.
    weak var engine: AudioEngine?
    private var players: [WeakPlayer] = []

    private struct WeakPlayer { weak var player: (any SessionMusicPlayer)? }

    init(engine: AudioEngine?) { self.engine = engine }

    /// Adds a music player the session acts on.
    func register(_ player: any SessionMusicPlayer) {
        engine?.withLock {
            players.removeAll { $0.player == nil }
            players.append(WeakPlayer(player: player))
        }
    }

    private var livePlayers: [any SessionMusicPlayer] {
        engine?.withLock { players.compactMap(\.player) } ?? []
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
        for player in livePlayers where player.isGameMusic { player.setSessionMuted(muted) }
    }

    func markInterrupted(reason: String) -> Set<SessionPlayerID> {
        var interrupted: Set<SessionPlayerID> = []
        for player in livePlayers where player.isPlayingForSession {
            player.sessionPause(interrupted: true, reason: reason)
            interrupted.insert(player.sessionID)
        }
        return interrupted
    }

    func pauseMusic(reason: String) {
        for player in livePlayers where player.isPlayingForSession {
            player.sessionPause(interrupted: false, reason: reason)
        }
    }

    func resumeMusic(_ ids: Set<SessionPlayerID>, reason: String) {
        for player in livePlayers where ids.contains(player.sessionID) { player.sessionResume(reason: reason) }
    }

    func keepMusicPaused(_ ids: Set<SessionPlayerID>, reason: String) {
        for player in livePlayers where ids.contains(player.sessionID) { player.sessionKeepPaused(reason: reason) }
    }

    func duckMusic(_ duck: MusicDuck) {
        guard let engine else { return }
        let rate = engine.sampleRate
        engine.withLock {
            let start = duck.start.frames(atSampleRate: rate)
            engine.musicBus.duck(gain: duck.gain, startFrame: start,
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
