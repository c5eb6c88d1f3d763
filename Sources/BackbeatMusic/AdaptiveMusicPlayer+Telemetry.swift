import BackbeatEngine

extension AdaptiveMusicPlayer: MonitoredMusicPlayer {
    package var telemetryKind: String { "adaptive" }

    /// The section heard (or paused in) and the seconds since it started.
    package var telemetryStatusLocked: (state: String, item: String?, time: Double) {
        guard let engine else { return ("\(playbackStateLocked)", nil, 0) }
        let rate = Double(engine.sampleRate)
        if let suspended {
            return ("\(playbackStateLocked)", suspended.name, Double(suspended.position) / rate)
        }
        let heard = heardNow()
        let frames = heard.map { max(0, engine.currentFrameLocked - $0.start) } ?? 0
        return ("\(playbackStateLocked)", heard?.name, Double(frames) / rate)
    }
}
