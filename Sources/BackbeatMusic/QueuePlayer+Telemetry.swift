import BackbeatEngine

extension QueuePlayer: MonitoredMusicPlayer {
    package var telemetryKind: String { "queue" }

    package var telemetryStatusLocked: (state: String, item: String?, time: Double) {
        let rate = Double(core.engine?.sampleRate ?? 0)
        let frame = core.frame(in: machine.current) ?? 0
        let item = machine.currentKey.map { $0.url.lastPathComponent }
        return ("\(status)", item, rate > 0 ? Double(frame) / rate : 0)
    }
}
