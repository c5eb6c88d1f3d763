import BackbeatEngine

extension MusicPlayer: MonitoredMusicPlayer {
    package var telemetryKind: String { "music" }

    package var telemetryStatusLocked: (state: String, item: String?, time: Double) {
        let rate = Double(core.stream.feed.sampleRate)
        let frame = core.frame(in: machine.current) ?? 0
        return (state.telemetryName, nowPlayingLocked?.title, rate > 0 ? Double(frame) / rate : 0)
    }
}

extension MusicPlayer.PlaybackState {
    /// The state as a snapshot names it (the case's name). A switch, since
    /// interpolating the enum formats it through reflection on every snapshot.
    var telemetryName: String {
        switch self {
        case .stopped: "stopped"
        case .playing: "playing"
        case .paused: "paused"
        case .interrupted: "interrupted"
        case .seekingForward: "seekingForward"
        case .seekingBackward: "seekingBackward"
        }
    }
}
