import Backbeat
import BackbeatLibrary

/// The demo's music when no music player could be made (the device has no
/// source left for a stream): every music command says so, plainly, and
/// nothing pretends to play.
public final class UnavailableMusic: DrumpadMusic {
    /// Why music commands fail.
    public struct Unavailable: Error, CustomStringConvertible, Sendable {
        /// One line.
        public let description = "music is not available: no music player could be made on this engine"
    }

    /// Creates the stand-in.
    public init() {}

    public func setQueue(_ items: [MediaItem]) throws { throw Unavailable() }
    public func play() throws { throw Unavailable() }
    public func pause() throws { throw Unavailable() }
    public func stop() throws { throw Unavailable() }
    public func skipToNextItem() throws { throw Unavailable() }
    public func skipToPreviousItem() throws { throw Unavailable() }
    public func seek(to time: MediaTime) throws { throw Unavailable() }
    public func setRepeatMode(_ mode: DrumpadCommand.RepeatMode) throws { throw Unavailable() }
    public func setShuffleMode(_ mode: DrumpadCommand.ShuffleMode) throws { throw Unavailable() }
    public func playbackState() throws -> DrumpadPlaybackState { throw Unavailable() }
    public func nowPlayingItem() throws -> MediaItem? { throw Unavailable() }
    public func currentPlaybackTime() throws -> MediaTime { throw Unavailable() }
    public func level() -> Float? { nil }
    public func fadeOut(duration: MediaTime) {}
    public func onChange(_ handler: @escaping @Sendable () -> Void) {}
}
