import BackbeatMedia

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a music player plays: a song's asset and the few tags a player shows
/// (on screen, or to the desktop as "now playing").
///
/// The media library's `MediaItem` (in `BackbeatLibrary`) is one; a game can
/// make its own for songs it ships. Two items are the same song when they are
/// equal: the player reports a change of now-playing item only when the item
/// differs.
public protocol MusicItem: Hashable, Sendable {
    /// The song's file.
    var asset: AudioAsset { get }
    /// A number that names the item while it is queued; the desktop's track
    /// identifier and the artwork file a published player writes are named
    /// after it.
    var persistentID: UInt64 { get }
    /// The title to show.
    var title: String { get }
    /// The performing artist, if known.
    var artist: String? { get }
    /// The album's title, if known; ``MusicPlayer/ShuffleMode/albums`` groups by it.
    var albumTitle: String? { get }
    /// The song's length (zero when unknown).
    var playbackDuration: MediaTime { get }
    /// The cover picture as stored (JPEG or PNG bytes), or nil without one.
    /// It may read the file: a player asks only when it publishes the item.
    func artworkImageData() -> Data?
}

extension MusicItem {
    /// No cover picture.
    public func artworkImageData() -> Data? { nil }
}

/// Whether two items of any types are the same song.
func isSameItem(_ a: (any MusicItem)?, _ b: (any MusicItem)?) -> Bool {
    switch (a, b) {
    case (nil, nil): true
    case (let a?, let b?): AnyHashable(a) == AnyHashable(b)
    default: false
    }
}

/// Where a music player records what was played and skipped (the media
/// library's play counts). Called on the thread that delivers the engine's
/// events, never under the engine lock.
package protocol MusicPlayHistory: Sendable {
    /// `item` played to its end at `date`.
    func recordPlay(of item: any MusicItem, at date: Date)
    /// `item` was skipped before its end.
    func recordSkip(of item: any MusicItem)
}
