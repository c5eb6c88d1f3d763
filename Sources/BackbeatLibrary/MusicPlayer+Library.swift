import BackbeatMusic

#if canImport(FoundationEssentials)
import FoundationEssentials
import BackbeatSupport
#else
import Foundation
#endif

extension MusicPlayer {
    /// Plays the items `query` returns; play counts go to its library.
    ///
    /// - Parameter query: The query whose items, in its order, make the queue.
    /// - Throws: the library's ``BackbeatError`` if the query cannot run.
    public func setQueue(query: MediaQuery) throws {
        setQueue(items: try query.items, library: query.library)
    }

    /// Plays the items of `collection`.
    ///
    /// - Parameters:
    ///   - collection: The items, in order.
    ///   - library: Where plays and skips are recorded; nil records none.
    public func setQueue(collection: MediaItemCollection, library: MediaLibrary? = nil) {
        setQueue(items: collection.items, library: library)
    }

    /// Plays `items`, in order (or shuffled). With `library`, plays and skips
    /// are recorded there. The player stops; the first item becomes the
    /// now-playing item.
    ///
    /// - Parameters:
    ///   - items: The items, in order.
    ///   - library: Where plays and skips are recorded; nil records none.
    public func setQueue(items: [MediaItem], library: MediaLibrary? = nil) {
        setQueue(items: items, history: library.map(LibraryPlayHistory.init))
    }
}

/// The music player's play and skip counts, kept in a media library. The
/// player reports them on the engine's thread; they are written on the
/// library's statistics queue, with failures kept in
/// ``MediaLibrary/statisticsWriteFailures``.
struct LibraryPlayHistory: MusicPlayHistory {
    let library: MediaLibrary

    func recordPlay(of item: any MusicItem, at date: Date) {
        guard let item = item as? MediaItem else { return }
        library.writeStatisticsLater { try $0.recordPlay(of: item, at: date) }
    }

    func recordSkip(of item: any MusicItem) {
        guard let item = item as? MediaItem else { return }
        library.writeStatisticsLater { try $0.recordSkip(of: item) }
    }
}
