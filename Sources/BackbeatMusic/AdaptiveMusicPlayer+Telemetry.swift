import BackbeatEngine

extension AdaptiveMusicPlayer: MonitoredMusicPlayer {
    package var telemetryKind: String { "adaptive" }

    /// The section heard (or paused in) and the seconds since it started.
    package var telemetryStatusLocked: (state: String, item: String?, time: Double) {
        let state = playbackStateLocked.telemetryName
        guard let engine else { return (state, nil, 0) }
        let rate = Double(engine.sampleRate)
        if let suspended {
            return (state, suspended.name, Double(suspended.position) / rate)
        }
        let heard = heardNow()
        let frames = heard.map { max(0, engine.currentFrameLocked - $0.start) } ?? 0
        return (state, heard?.name, Double(frames) / rate)
    }
}

extension AdaptiveMusicPlayer.PlaybackState {
    /// The state as a snapshot names it (the case's name). A switch, since
    /// interpolating the enum formats it through reflection on every snapshot.
    var telemetryName: String {
        switch self {
        case .stopped: "stopped"
        case .playing: "playing"
        case .paused: "paused"
        case .interrupted: "interrupted"
        }
    }
}
