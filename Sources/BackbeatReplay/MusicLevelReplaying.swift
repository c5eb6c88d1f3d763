import BackbeatEngine
import BackbeatMedia
import BackbeatMusic

/// The level calls every kind of music player answers alike, so that the
/// replay applies a volume, fade or fade-out record in one place
/// (`Replayer.applyLevel`) whatever the player.
protocol MusicLevelReplaying: AnyObject {
    /// The player's volume, set at once.
    var volume: Float { get set }

    /// Fades the volume to `target`; the music plays on.
    ///
    /// - Parameters:
    ///   - target: The volume to reach.
    ///   - duration: How long the fade takes, in engine time.
    ///   - curve: The fade's shape.
    func fade(to target: Float, duration: MediaTime, curve: FadeCurve)

    /// Fades to silence and stops.
    ///
    /// - Parameter duration: How long the fade takes, in engine time.
    func fadeOut(duration: MediaTime)
}

extension QueuePlayer: MusicLevelReplaying {}
extension MusicPlayer: MusicLevelReplaying {}
extension AdaptiveMusicPlayer: MusicLevelReplaying {}
