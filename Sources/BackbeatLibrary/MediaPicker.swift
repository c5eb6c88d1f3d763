import BackbeatSupport

/// The model of a media picker, like `MPMediaPickerController` without the
/// views: it lists what to browse (playlists, artists, albums, songs,
/// genres), limited to some media types, keeps the selection (one item or
/// many), and finishes with ``Result/didPick(_:)`` or ``Result/didCancel``.
/// A front end draws it and forwards the user's choices.
public final class MediaPicker: Sendable {
    /// A way to browse.
    public enum Category: String, CaseIterable, Sendable {
        /// One row per playlist.
        case playlists
        /// One row per artist.
        case artists
        /// One row per album.
        case albums
        /// One row per song.
        case songs
        /// One row per genre.
        case genres
    }

    /// How the picker ended.
    public enum Result: Sendable, Equatable {
        /// The user chose these items, in the order chosen.
        case didPick(MediaItemCollection)
        /// The user cancelled.
        case didCancel
    }

    /// One row of a browse list: a collection to open, or (for songs) a single item.
    public struct Entry: Sendable, Hashable {
        /// The row's title: a playlist, artist, album or genre name, or a song title.
        public let title: String
        /// A second line: the artist for albums and songs, or an item count.
        public let subtitle: String
        /// The items under the row (one for a song).
        public let items: [MediaItem]
    }

    /// The library browsed.
    public let library: MediaLibrary
    /// The media types offered.
    public let mediaTypes: MediaType
    /// Whether several items may be picked; if not, picking one finishes.
    public let allowsPickingMultipleItems: Bool
    private let state = LockedValueBox<(selection: [MediaItem], result: Result?)>(([], nil))

    /// A picker over `library`, offering `mediaTypes`.
    ///
    /// - Parameters:
    ///   - library: The library to browse.
    ///   - mediaTypes: The kinds of items offered.
    ///   - allowsPickingMultipleItems: Whether several items may be picked before the picker finishes.
    public init(library: MediaLibrary, mediaTypes: MediaType = .anyAudio, allowsPickingMultipleItems: Bool = false) {
        self.library = library
        self.mediaTypes = mediaTypes
        self.allowsPickingMultipleItems = allowsPickingMultipleItems
    }

    /// The rows to show for `category`, in the iPod's order, with alphabetical sections.
    ///
    /// - Parameter category: What to list: songs, albums, artists, playlists, ...
    /// - Returns: The rows, and the sections (first letters) that index them.
    /// - Throws: The library's ``BackbeatError`` when its query cannot run.
    public func browse(_ category: Category) throws -> (entries: [Entry], sections: [MediaQuerySection]) {
        var query = MediaQuery(library: library)
        try query.addFilterPredicate(MediaPropertyPredicate(value: mediaTypes))
        switch category {
        case .playlists:
            query.groupingType = .playlist
            let playlists = try query.playlists
            return (
                playlists.map { Entry(title: $0.name, subtitle: Self.count($0.count), items: $0.items) },
                try query.collectionSections
            )
        case .artists: query.groupingType = .artist
        case .albums: query.groupingType = .album
        case .genres: query.groupingType = .genre
        case .songs:
            query.groupingType = .title
            let items = try query.items
            return (
                items.map { Entry(title: $0.title, subtitle: $0.artist ?? "Unknown Artist", items: [$0]) },
                try query.itemSections
            )
        }
        let collections = try query.collections
        let entries = collections.map { collection -> Entry in
            let first = collection.representativeItem
            let title: String
            let subtitle: String
            switch category {
            case .artists: (title, subtitle) = (first?.artist ?? "Unknown Artist", Self.count(collection.count))
            case .albums:
                (title, subtitle) = (first?.albumTitle ?? "Unknown Album", first?.albumArtist ?? "Unknown Artist")
            default: (title, subtitle) = (first?.genre ?? "Unknown Genre", Self.count(collection.count))
            }
            return Entry(title: title, subtitle: subtitle, items: collection.items)
        }
        return (entries, try query.collectionSections)
    }

    private static func count(_ n: Int) -> String { n == 1 ? "1 item" : "\(n) items" }

    /// The items picked so far, in order.
    public var selection: [MediaItem] { state.withLockedValue { $0.selection } }

    /// How the picker ended, or nil while it is open.
    public var result: Result? { state.withLockedValue { $0.result } }

    /// Picks `items` (a song, or every item of a row). In single selection the
    /// first item finishes the picker; in multiple selection items already
    /// picked are not added twice. Does nothing once the picker has finished.
    ///
    /// - Parameter items: The items to add to the selection.
    public func pick(_ items: [MediaItem]) {
        state.withLockedValue { state in
            guard state.result == nil, !items.isEmpty else { return }
            if !allowsPickingMultipleItems {
                state.selection = [items[0]]
                state.result = .didPick(MediaItemCollection(items: state.selection))
                return
            }
            let picked = Set(state.selection.map(\.persistentID))
            state.selection += items.filter { !picked.contains($0.persistentID) }
        }
    }

    /// Removes `item` from the selection.
    ///
    /// - Parameter item: The item to remove; one not picked is ignored.
    public func unpick(_ item: MediaItem) {
        state.withLockedValue { state in
            guard state.result == nil else { return }
            state.selection.removeAll { $0.persistentID == item.persistentID }
        }
    }

    /// Finishes with the selection (``Result/didCancel`` if nothing was picked).
    @discardableResult
    public func done() -> Result {
        state.withLockedValue { state in
            if let result = state.result { return result }
            let result: Result =
                state.selection.isEmpty ? .didCancel : .didPick(MediaItemCollection(items: state.selection))
            state.result = result
            return result
        }
    }

    /// Finishes with ``Result/didCancel``.
    @discardableResult
    public func cancel() -> Result {
        state.withLockedValue { state in
            if let result = state.result { return result }
            state.result = .didCancel
            return .didCancel
        }
    }
}
