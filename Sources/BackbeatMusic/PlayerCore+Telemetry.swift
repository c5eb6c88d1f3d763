import BackbeatEngine
import BackbeatTelemetry

/// A music player as a monitor sees it: each of ``MusicPlayer``,
/// ``QueuePlayer`` and ``AdaptiveMusicPlayer`` registers itself with its
/// engine's telemetry when made; its core reports the rest.
package protocol MonitoredMusicPlayer: EngineMusicPlaying, TelemetryContributor {
    /// `"music"`, `"queue"` or `"adaptive"`.
    var telemetryKind: String { get }
    /// What it is doing, what it plays (a title, a file name or a section)
    /// and how far into it, in seconds; under the engine lock.
    var telemetryStatusLocked: (state: String, item: String?, time: Double) { get }
}

extension MonitoredMusicPlayer {
    /// Adds the player and its level to the snapshot.
    ///
    /// - Parameter builder: The snapshot under construction.
    package func contributeLocked(to builder: TelemetrySnapshotBuilder) {
        core.contributeTelemetryLocked(to: builder, kind: telemetryKind, status: telemetryStatusLocked)
    }

    /// A music player takes no setting of its own: its volume is the game's.
    ///
    /// - Parameter setting: The change a monitor asked for.
    /// - Returns: nil, always.
    package func applyTelemetryLocked(_ setting: TelemetrySetting) -> Result<Void, TelemetryCommandError>? { nil }
}

extension PlayerCore {
    /// Adds a player's line and level to `builder`: the level of the samples
    /// its streams played since the last snapshot, as heard (after its volume
    /// and fades, the bus chain and its mute), on the music bus.
    ///
    /// - Parameters:
    ///   - builder: The snapshot under construction.
    ///   - kind: The player's kind.
    ///   - status: Its state, item and time.
    func contributeTelemetryLocked(
        to builder: TelemetrySnapshotBuilder, kind: String, status: (state: String, item: String?, time: Double)
    ) {
        guard let engine else { return }
        #if DEBUG
        engine.preconditionLocked()
        #endif
        var meanSquare = 0.0
        var peak = 0.0
        for stream in streams {
            let level = stream.takeTelemetryLevel()
            meanSquare += level.meanSquare
            peak += level.peak
        }
        let bus = engine.musicBus
        builder.addLevel(on: bus, meanSquare: meanSquare, peak: peak)
        builder.snapshot.music.append(
            TelemetrySnapshot.MusicPlayer(
                kind: kind, state: status.state, item: status.item, time: status.time, volume: Double(level.volume),
                bus: bus.name))
        // Each stream holds one OpenAL source for as long as the player lives.
        builder.snapshot.engine.sourcesInUse += streams.count
    }
}
