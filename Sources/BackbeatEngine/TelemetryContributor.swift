import BackbeatTelemetry

/// A layer above the engine that has something to show a monitor, or
/// something a monitor may change: the voice pool (voices, their levels,
/// mix snapshots, stopping a voice), the music players. The engine knows
/// them only through this hook, as it knows components through
/// ``EngineComponent``.
///
/// Both members run under the engine lock. They run only while a monitor
/// is attached, so they may allocate; they must not block.
package protocol TelemetryContributor: AnyObject {
    /// Adds this part's section to the snapshot being built.
    ///
    /// - Parameter builder: the snapshot under construction; add voices,
    ///   music players or snapshots to `builder.snapshot`, and the level each
    ///   voice contributes to its bus with ``TelemetrySnapshotBuilder/addLevel(on:meanSquare:peak:)``.
    func contributeLocked(to builder: TelemetrySnapshotBuilder)
    /// Applies a setting this part owns.
    ///
    /// - Parameter setting: the change a monitor asked for.
    /// - Returns: nil when the setting is not this part's (the engine asks
    ///   the next), `.success` when applied, `.failure` with one line saying
    ///   why nothing changed (an unknown snapshot name, say).
    func applyTelemetryLocked(_ setting: TelemetrySetting) -> Result<Void, TelemetryCommandError>?
}

/// A snapshot under construction, handed to each ``TelemetryContributor``
/// in turn, then finished by the engine (bus levels folded into parents,
/// converted to dB).
package final class TelemetrySnapshotBuilder {
    /// The snapshot so far.
    package var snapshot: TelemetrySnapshot
    /// Engine time of the snapshot, in frames.
    package let frame: Int64
    /// Frames since the previous snapshot: the window levels cover.
    package let window: Int64
    /// Per bus that has a level (by identity, in the order first added):
    /// summed mean square and peak of what its own voices play, as heard
    /// (after every gain). A short array searched from the end, not a
    /// dictionary: a game has a handful of buses, and a voice's bus is most
    /// often the previous voice's, so no key is hashed per voice.
    package private(set) var levels: [(bus: ObjectIdentifier, meanSquare: Double, peak: Double)] = []

    package init(snapshot: TelemetrySnapshot, frame: Int64, window: Int64) {
        self.snapshot = snapshot
        self.frame = frame
        self.window = window
        // Room for a game's few buses at once: grown one bus at a time, the
        // array was allocated again as each bus came.
        levels.reserveCapacity(8)
    }

    /// Adds one voice's (or stream's) level to its bus.
    ///
    /// - Parameters:
    ///   - bus: the bus the signal plays on.
    ///   - meanSquare: the signal's mean square over the window, as heard (after every gain),
    ///     per output sample: averaged over the output's channels, so that a bus's
    ///     level reads as the RMS of the rendered output would (a music stream
    ///     gives the mean of its two channels' mean squares).
    ///   - peak: its largest absolute sample over the window, as heard.
    package func addLevel(on bus: Bus, meanSquare: Double, peak: Double) {
        let key = ObjectIdentifier(bus)
        var index = levels.count - 1
        while index >= 0 && levels[index].bus != key { index -= 1 }
        if index < 0 {
            levels.append((key, meanSquare, peak))
        } else {
            levels[index].meanSquare += meanSquare
            levels[index].peak += peak
        }
    }

    /// The summed level of `bus`'s own voices, nil when none added one.
    ///
    /// - Parameter bus: the bus, by identity.
    package func level(of bus: ObjectIdentifier) -> (meanSquare: Double, peak: Double)? {
        for entry in levels where entry.bus == bus { return (entry.meanSquare, entry.peak) }
        return nil
    }
}
