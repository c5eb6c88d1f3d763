import BackbeatMedia

extension AudioEngine {
    /// How long ``shutdown()`` fades the music players out (equal-power) before
    /// it stops them; default 1 s, zero for no fade. Negative values count as zero.
    ///
    /// On a `.device` output the fade plays out in real time; on a `.file`
    /// output it is rendered into the file. On `.offline` output nobody can
    /// hear it, so shutdown does not render it: call
    /// ``MusicPlayer/fadeOut(duration:)`` or ``QueuePlayer/fadeOut(duration:)``
    /// and render to get the same fade.
    public var shutdownFadeDuration: MediaTime {
        get { withLock { shutdownFadeStorage } }
        set { withLock { shutdownFadeStorage = max(.zero, newValue) } }
    }

    /// Fades the music out, then ends the players' event streams.
    func fadeOutMusicBeforeShutdown() {
        fadeOutAudibleMusic()
        for player in withLock({ liveMusicPlayersLocked }) { player.finishEventStreams() }
    }

    /// Starts the fade on every audible music player and lets it play out.
    private func fadeOutAudibleMusic() {
        let onRealTimeThread = isOnRealTimeThread
        let span = withLock { () -> (start: Int64, end: Int64)? in
            guard isRunningLocked else { return nil }
            if case .offline = output { return nil }
            let frames = shutdownFadeStorage.frames(atSampleRate: sampleRate, rounding: .up)
            guard beginShutdownFadeLocked(frames: frames) else { return nil }
            let start = currentFrameLocked
            recordLocked(.shutdownFade) { $0.append(frames) }
            // One more update period so the last gain step (silence) is applied and heard.
            return (start, start + frames + Int64(updateInterval) * 2)
        }
        guard let span else { return }
        switch output {
        case .offline:
            return
        case .file(_, _, .asFastAsPossible):
            try? advance(by: MediaTime(frames: span.end - span.start, sampleRate: sampleRate))
        case .file(_, _, .realTime) where onRealTimeThread:
            // Shut down from the thread that paces the file: it renders the fade itself.
            try? renderOnRealTimeThread(frames: span.end - span.start)
        case .device where onRealTimeThread:
            // Shut down from the thread that drives the device, which would have
            // to play the fade it waits for: the music stops without it.
            return
        case .device, .file(_, _, .realTime):
            waitForRealTime(toReach: span.end, atMost: Double(span.end - span.start) / Double(sampleRate) * 2 + 0.5)
        }
    }

    /// Starts the shutdown fade, over `frames`, on every audible music
    /// player; false when none is audible or `frames` is not positive. A
    /// replay calls it where the captured game's shutdown began.
    ///
    /// - Parameter frames: The fade's length.
    /// - Returns: Whether any player started fading.
    package func beginShutdownFadeLocked(frames: Int64) -> Bool {
        preconditionLocked()
        let players = musicPlayers.compactMap(\.player).filter(\.isAudible)
        guard frames > 0, !players.isEmpty else { return false }
        let start = currentFrameLocked
        for player in players { player.beginShutdownFade(at: start, frames: frames) }
        return true
    }
}
