import Foundation  // NSRecursiveLock, NSCondition, Thread: until the engine has its own lock and thread
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
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
        for player in liveMusicPlayers { player.finishEventStreams() }
    }

    /// Starts the fade on every audible music player and lets it play out.
    private func fadeOutAudibleMusic() {
        let (frames, players) = withLock { () -> (Int64, [any SessionMusicPlayer]) in
            guard isRunningLocked else { return (0, []) }
            let frames = shutdownFadeStorage.frames(atSampleRate: sampleRate, rounding: .up)
            return (frames, musicPlayers.compactMap(\.player).filter(\.isAudible))
        }
        guard frames > 0, !players.isEmpty else { return }
        if case .offline = output { return }
        let start = currentFrame
        withLock { for player in players { player.beginShutdownFade(at: start, frames: frames) } }
        // One more update period so the last gain step (silence) is applied and heard.
        let end = start + frames + Int64(updateInterval) * 2
        switch output {
        case .offline:
            return
        case .file(_, _, .asFastAsPossible):
            try? advance(by: MediaTime(frames: end - start, sampleRate: sampleRate))
        case .device, .file(_, _, .realTime):
            // The wall clock only decides when to look again; engine time decides when the fade is done.
            let giveUp = DispatchTime.now().uptimeNanoseconds + UInt64(Double(end - start) / Double(sampleRate) * 2e9) + 500_000_000
            while currentFrame < end, DispatchTime.now().uptimeNanoseconds < giveUp { usleep(2_000) }
        }
    }
}
