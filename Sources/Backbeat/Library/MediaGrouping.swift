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

    /// The SQL ordering, the group key column and the sort key column.
    var plan: (orderBy: String, groupKey: String, sortKey: String) {
        let albumOrder = "i.album_sort, i.album_group, i.disc, i.track, i.title_sort, i.id"
        return switch self {
        case .title: ("i.title_sort, i.artist_sort, i.album_sort, i.id", "i.id", "i.title_sort")
        case .album, .podcastTitle, .playlist: (albumOrder, "i.album_group", "i.album_sort")
        case .artist: ("i.artist_sort, i.artist_key, \(albumOrder)", "i.artist_key", "i.artist_sort")
        case .albumArtist: ("i.album_artist_sort, i.album_artist_key, \(albumOrder)", "i.album_artist_key", "i.album_artist_sort")
        case .composer: ("i.composer_sort, i.composer_key, i.title_sort, i.id", "i.composer_key", "i.composer_sort")
        case .genre: ("i.genre_sort, i.genre_key, i.artist_sort, \(albumOrder)", "i.genre_key", "i.genre_sort")
        }
    }
}
