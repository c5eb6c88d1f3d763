import BackbeatEngine

extension QueuePlayer: MonitoredMusicPlayer {
    package var telemetryKind: String { "queue" }

    package var telemetryStatusLocked: (state: String, item: String?, time: Double) {
        let rate = Double(core.engine?.sampleRate ?? 0)
        let frame = core.frame(in: machine.current) ?? 0
        let item = machine.currentKey?.fileName
        // Named by a switch: interpolating the enum would format it through reflection on every snapshot.
        let state: String =
            switch status {
            case .paused: "paused"
            case .playing: "playing"
            case .interrupted: "interrupted"
            }
        return (state, item, rate > 0 ? Double(frame) / rate : 0)
    }
}
