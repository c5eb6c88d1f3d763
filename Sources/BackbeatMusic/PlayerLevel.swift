import BackbeatEngine
import BackbeatMedia

/// What every music player does with its level, in one value the player holds
/// under the engine lock: the volume and its fades, the shutdown fade
/// (``AudioEngine/shutdown()`` and `fadeOut`), and the meters.
struct PlayerLevel: Sendable {
    /// The volume, 0...1: the target of a fade while one runs.
    private(set) var volume: Float = 1
    private var volumeFade: Fade?
    private var shutdownFade: Fade?
    /// The meters, refreshed from the player's stream.
    var meters = Metering()

    /// Sets the volume (clamped to 0...1) and cancels a fade. Returns the new
    /// volume when it changed, nil when it did not or `value` is NaN.
    mutating func setVolume(_ value: Float) -> Float? {
        guard !value.isNaN else { return nil }
        let new = min(max(value, 0), 1)
        volumeFade = nil
        guard new != volume else { return nil }
        volume = new
        return new
    }

    /// Fades the volume from where it is at `frame` to `target` (clamped) over
    /// `frames`. Returns the new volume, nil when `target` is NaN.
    mutating func fade(to target: Float, at frame: Int64, frames: Int64, curve: FadeCurve) -> Float? {
        guard !target.isNaN else { return nil }
        let from = volumeFade?.gain(at: frame) ?? volume
        volume = min(max(target, 0), 1)
        volumeFade = Fade(from: from, to: volume, startFrame: frame, frames: max(0, frames), curve: curve)
        return volume
    }

    /// Starts the equal-power fade to silence from wherever the shutdown fade is at `frame`.
    mutating func beginShutdownFade(at frame: Int64, frames: Int64) {
        let from = shutdownFade?.gain(at: frame) ?? 1
        shutdownFade = Fade(from: from, to: 0, startFrame: frame, frames: max(0, frames), curve: .equalPower)
    }

    /// The gain at engine frame `frame`: volume (or its fade) times the shutdown fade.
    func gain(at frame: Int64) -> Float {
        (volumeFade?.gain(at: frame) ?? volume) * (shutdownFade?.gain(at: frame) ?? 1)
    }
}
