import BackbeatEngine

extension MusicPlayer: MonitoredMusicPlayer {
    package var telemetryKind: String { "music" }

    package var telemetryStatusLocked: (state: String, item: String?, time: Double) {
        let rate = Double(core.stream.feed.sampleRate)
        let frame = core.frame(in: machine.current) ?? 0
        return ("\(state)", nowPlayingLocked?.title, rate > 0 ? Double(frame) / rate : 0)
    }
}
