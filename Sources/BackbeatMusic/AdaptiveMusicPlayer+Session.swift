import BackbeatEngine

// The audio session, the engine's shutdown, and the events they and the game's calls cause (under the engine lock).
extension AdaptiveMusicPlayer {
    /// The game's adaptive music: muted by the silent switch and other audio like ``QueuePlayer``.
    package var isGameMusic: Bool { true }

    package func sessionInterrupt(reason: String) -> Bool {
        guard let engine, suspendLocked(engine: engine) else { return false }
        interrupted = true
        reportLocked()
        return true
    }

    package func sessionPause(reason: String) {
        guard let engine else { return }
        suspendLocked(engine: engine)
        interrupted = false
        reportLocked()
    }

    package func sessionResume(reason: String) {
        guard interrupted, let engine else { return }
        resumeLocked(engine: engine)
        reportLocked()
    }

    package func sessionKeepPaused(reason: String) {
        interrupted = false
        reportLocked()
    }

    package func setGameMusicMuted(_ muted: Bool) {
        core.sessionMuted = muted
    }

    /// Held back arrives through ``setGameMusicMuted(_:)``, with the silent switch.
    package func setHeldBack(_ heldBack: Bool) {}

    package var isAudible: Bool { engine != nil && suspended == nil && (heard != nil || pending != nil) }

    var playbackStateLocked: PlaybackState {
        #if DEBUG
        engine?.preconditionLocked()
        #endif
        if suspended != nil { return interrupted ? .interrupted : .paused }
        return heard != nil || pending != nil ? .playing : .stopped
    }

    /// Posts what changed since the last report: the playback state, then the section heard.
    func reportLocked() {
        #if DEBUG
        engine?.preconditionLocked()
        #endif
        let state = playbackStateLocked
        if state != reported.state {
            reported.state = state
            core.post(.playbackStateDidChange(state))
        }
        let section = heardNow()?.name
        if section != reported.section {
            reported.section = section
            core.post(.sectionDidChange(section))
        }
    }
}
