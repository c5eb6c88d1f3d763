/// How a ``MediaQuery`` groups its items into collections.
public enum MediaGrouping: String, Hashable, Sendable, CaseIterable {
    /// Every item is its own collection, in title order.
    case title
    /// One collection per album (album title and album artist; compilations by title alone),
    /// items by disc, then track number.
    case album
    /// One collection per artist.
    case artist
    /// One collection per album artist.
    case albumArtist
    /// One collection per composer.
    case composer
    /// One collection per genre.
    case genre
    /// One collection per playlist.
    case playlist
    /// One collection per podcast (its album title).
    case podcastTitle

    /// How SQLite orders and groups the items.
    ///
    /// Items sort by `columns` (of the `items` table); a collection is a run of
    /// items with equal `key`. Except for ``title``, the first two columns are
    /// the group's sort name and its key, so a collection is a run of adjacent
    /// blocks of equal (sort name, key), which SQLite can `GROUP BY`.
    struct Plan {
        /// The order of the items, most significant first.
        let columns: [String]
        /// The column whose runs form the collections.
        let key: String

        /// The column sections are taken from: the group's sort name.
        var sortKey: String { columns[0] }
        /// Whether collections are runs of (sort name, key) blocks, so SQL can group them.
        var groupsInBlocks: Bool { columns.count > 2 && columns[1] == key }
        /// The order within one (sort name, key) block.
        var withinBlock: ArraySlice<String> { columns.dropFirst(2) }

        /// The ORDER BY list on the table aliased `table`.
        func orderBy(_ table: String = "i") -> String { Self.qualified(columns[...], table) }

        static func qualified(_ columns: ArraySlice<String>, _ table: String) -> String {
            columns.map { "\(table).\($0)" }.joined(separator: ", ")
        }
    }

    var plan: Plan {
        let albumOrder = ["album_sort", "album_group", "disc", "track", "title_sort", "id"]
        return switch self {
        case .title: Plan(columns: ["title_sort", "artist_sort", "album_sort", "id"], key: "id")
        case .album, .podcastTitle, .playlist: Plan(columns: albumOrder, key: "album_group")
        case .artist: Plan(columns: ["artist_sort", "artist_key"] + albumOrder, key: "artist_key")
        case .albumArtist:
            Plan(columns: ["album_artist_sort", "album_artist_key"] + albumOrder, key: "album_artist_key")
        case .composer: Plan(columns: ["composer_sort", "composer_key", "title_sort", "id"], key: "composer_key")
        case .genre: Plan(columns: ["genre_sort", "genre_key", "artist_sort"] + albumOrder, key: "genre_key")
        }
    }
}
