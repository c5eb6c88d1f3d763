import BackbeatMedia
import BackbeatSupport

/// What every music player does, under one name per operation: the
/// application player (``MusicPlayer``), the game's own queue
/// (``QueuePlayer``) and the desktop's system player (BackbeatDesktop's
/// `SystemMusicPlayer`).
///
/// The system player's commands go to another program, so they can fail:
/// every command here may throw. The engine's players never do.
///
/// ```swift
/// func skipAhead(_ player: some MusicPlaying) throws {
///     try player.seek(to: MediaTime(seconds: try player.currentPlaybackTime.seconds + 10))
/// }
/// ```
public protocol MusicPlaying: AnyObject, Sendable {
    /// What the player reports.
    associatedtype Event: Sendable

    /// Starts or resumes playback.
    func play() throws
    /// Pauses where it is.
    func pause() throws
    /// Moves to the next item.
    func skipToNextItem() throws
    /// Moves to `time` in the current item.
    ///
    /// - Parameter time: The position in the current item.
    func seek(to time: MediaTime) throws
    /// The position in the current item.
    var currentPlaybackTime: MediaTime { get throws }
    /// Calls `handler` with each event until the returned token is cancelled.
    ///
    /// - Parameter handler: Called with each event, in order.
    /// - Returns: The token that ends the observation when cancelled.
    @discardableResult
    func observe(_ handler: @escaping @Sendable (Event) -> Void) -> ObservationToken
    /// A new stream of events from now on, keeping the newest unread ones.
    func events() -> AsyncStream<Event>
}
