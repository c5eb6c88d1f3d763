import BackbeatMusic
import BackbeatSupport

/// A music player that can be put on the desktop as an MPRIS player: the
/// small surface ``MPRISServer`` needs, so the server does not depend on how
/// the player is built.
protocol MPRISPublishable: AnyObject, Sendable {
    /// The player's state now.
    var mprisState: MPRISPublishedState { get }
    /// Carries out a command from the desktop (media keys, a widget, playerctl).
    func mprisControl(_ command: MPRISCommand)
    /// Calls `changed` whenever the state may have changed, from any thread,
    /// until the returned token is cancelled.
    func mprisObserve(_ changed: @escaping @Sendable () -> Void) -> ObservationToken
}

/// What a published player shows the desktop.
struct MPRISPublishedState: Sendable, Equatable {
    var status: DesktopPlayer.Status = .stopped
    var nowPlaying: NowPlayingInfo?
    /// The index of the item in the queue, for a track ID when the item has none.
    var queueIndex: Int = 0
    var repeatMode: MusicPlayer.RepeatMode = .none
    var isShuffling = false
    /// Microseconds into the item.
    var position: Int64 = 0
    var volume: Double = 1
    var canGoNext = true
    var canGoPrevious = true
}

/// A command from the desktop.
enum MPRISCommand: Sendable, Equatable {
    case play, pause, playPause, stop, next, previous
    /// Moves by microseconds, forward or back (MPRIS `Seek`): the result is
    /// clamped to zero, and past the item's length it acts as `next`.
    case seek(by: Int64)
    /// Moves to microseconds into the item whose MPRIS track ID is given
    /// (MPRIS `SetPosition`); ignored for another item's (a stale) ID, a
    /// negative position or one past the item's length.
    case setPosition(trackID: String, microseconds: Int64)
    case setRepeatMode(MusicPlayer.RepeatMode)
    case setShuffle(Bool)
    case setVolume(Double)
}
