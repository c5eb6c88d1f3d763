import Backbeat
import BackbeatLibrary

/// The music side of the drum pad demo: what the demo asks of a music player.
///
/// The demo speaks to its music only through this protocol, so the player
/// behind it can change without touching the commands. Every call that cannot
/// be honoured throws an error whose description is one line for the person
/// at the keyboard; the demo prints it and goes on.
public protocol DrumpadMusic: AnyObject, Sendable {
    /// Replaces the queue with `items`; the first one plays next.
    func setQueue(_ items: [MediaItem]) throws
    /// Starts or resumes playback.
    func play() throws
    /// Pauses playback.
    func pause() throws
    /// Stops playback and rewinds the queue.
    func stop() throws
    /// Skips to the next item.
    func skipToNextItem() throws
    /// Goes back to the previous item, or to the start of this one.
    func skipToPreviousItem() throws
    /// Moves the playhead of the now-playing item.
    func seek(to time: MediaTime) throws
    /// Sets what happens at the end of an item.
    func setRepeatMode(_ mode: DrumpadCommand.RepeatMode) throws
    /// Sets the order of the queue.
    func setShuffleMode(_ mode: DrumpadCommand.ShuffleMode) throws
    /// The player's state.
    func playbackState() throws -> DrumpadPlaybackState
    /// The item playing (or paused), or nil when there is none.
    func nowPlayingItem() throws -> MediaItem?
    /// The playhead in the now-playing item.
    func currentPlaybackTime() throws -> MediaTime
    /// The output level of the playing item, 0...1 (linear peak), or nil when not metering.
    func level() -> Float?
    /// Fades the music out over `duration` of engine time (the quit fade).
    func fadeOut(duration: MediaTime)
    /// Calls `handler` whenever the state or the now-playing item changes.
    func onChange(_ handler: @escaping @Sendable () -> Void)
}

/// What the music player is doing, as the demo shows it.
public enum DrumpadPlaybackState: String, Sendable, Hashable {
    /// Not playing; the queue is rewound.
    case stopped
    /// Playing.
    case playing
    /// Paused by a person (or by the session, for an unplug).
    case paused
    /// Stopped by an interruption (a call).
    case interrupted
    /// Scanning forward or backward.
    case seeking
}
