import BackbeatMedia
import Foundation

/// One song, podcast episode or audiobook in a ``MediaLibrary``: its metadata,
/// its file, its artwork and its play statistics, as of the query that returned it.
///
/// Items are values. Archive one with `Codable` (it encodes as its
/// ``persistentID``) and decode it against a library to find it again.
public struct MediaItem: Hashable, Sendable, Identifiable {
    /// The item's values, shared: copying an item (queries copy many) costs one reference count.
    final class Storage: Sendable {
        let persistentID: UInt64
        let mediaType: MediaType
        let title: String
        let artist: String?
        let albumTitle: String?
        let albumArtistTag: String?
        let genre: String?
        let composer: String?
        let albumTrackNumber: Int
        let discNumber: Int
        let playbackDuration: MediaTime
        let releaseDate: Date?
        let isCompilation: Bool
        let path: String
        let playCount: Int
        let skipCount: Int
        let lastPlayedDate: Date?
        let loudness: Loudness?
        let artworkSource: MediaItemArtwork.Source?
        let artworkWidth: Int
        let artworkHeight: Int
        let isAvailable: Bool
        init(
            persistentID: UInt64, mediaType: MediaType, title: String, artist: String?, albumTitle: String?,
            albumArtistTag: String?, genre: String?, composer: String?, albumTrackNumber: Int, discNumber: Int,
            playbackDuration: MediaTime, releaseDate: Date?, isCompilation: Bool, path: String, playCount: Int,
            skipCount: Int, lastPlayedDate: Date?, loudness: Loudness?, artworkSource: MediaItemArtwork.Source?,
            artworkWidth: Int, artworkHeight: Int, isAvailable: Bool
        ) {
            self.persistentID = persistentID
            self.mediaType = mediaType
            self.title = title
            self.artist = artist
            self.albumTitle = albumTitle
            self.albumArtistTag = albumArtistTag
            self.genre = genre
            self.composer = composer
            self.albumTrackNumber = albumTrackNumber
            self.discNumber = discNumber
            self.playbackDuration = playbackDuration
            self.releaseDate = releaseDate
            self.isCompilation = isCompilation
            self.path = path
            self.playCount = playCount
            self.skipCount = skipCount
            self.lastPlayedDate = lastPlayedDate
            self.loudness = loudness
            self.artworkSource = artworkSource
            self.artworkWidth = artworkWidth
            self.artworkHeight = artworkHeight
            self.isAvailable = isAvailable
        }
    }

    let storage: Storage

    init(
        persistentID: UInt64, mediaType: MediaType, title: String, artist: String?, albumTitle: String?,
        albumArtistTag: String?, genre: String?, composer: String?, albumTrackNumber: Int, discNumber: Int,
        playbackDuration: MediaTime, releaseDate: Date?, isCompilation: Bool, path: String, playCount: Int,
        skipCount: Int, lastPlayedDate: Date?, loudness: Loudness?, artworkSource: MediaItemArtwork.Source?,
        artworkWidth: Int, artworkHeight: Int, isAvailable: Bool = true
    ) {
        storage = Storage(
            persistentID: persistentID, mediaType: mediaType, title: title, artist: artist, albumTitle: albumTitle,
            albumArtistTag: albumArtistTag, genre: genre, composer: composer, albumTrackNumber: albumTrackNumber,
            discNumber: discNumber, playbackDuration: playbackDuration, releaseDate: releaseDate,
            isCompilation: isCompilation, path: path, playCount: playCount, skipCount: skipCount,
            lastPlayedDate: lastPlayedDate, loudness: loudness, artworkSource: artworkSource,
            artworkWidth: artworkWidth, artworkHeight: artworkHeight, isAvailable: isAvailable)
    }

    /// The identifier derived from the file's audio content; it survives a
    /// rescan, a rename and a move. Rewriting the file (such as editing its tags)
    /// gives it a new identity; the library carries play statistics over.
    public var persistentID: UInt64 { storage.persistentID }
    /// Music, podcast or audiobook.
    public var mediaType: MediaType { storage.mediaType }
    /// The title, or the file name without extension when the file has none.
    public var title: String { storage.title }
    /// The performing artist.
    public var artist: String? { storage.artist }
    /// The album's title.
    public var albumTitle: String? { storage.albumTitle }
    var albumArtistTag: String? { storage.albumArtistTag }
    /// The genre.
    public var genre: String? { storage.genre }
    /// The composer.
    public var composer: String? { storage.composer }
    /// The track number on its disc; 0 when unknown.
    public var albumTrackNumber: Int { storage.albumTrackNumber }
    /// The disc number; 0 when unknown.
    public var discNumber: Int { storage.discNumber }
    /// The duration.
    public var playbackDuration: MediaTime { storage.playbackDuration }
    /// The release date; tags often give only a year, which becomes 1 January of it.
    public var releaseDate: Date? { storage.releaseDate }
    /// Whether the item belongs to a compilation.
    public var isCompilation: Bool { storage.isCompilation }
    var path: String { storage.path }
    /// How many times it was played to the end.
    public var playCount: Int { storage.playCount }
    /// How many times it was skipped.
    public var skipCount: Int { storage.skipCount }
    /// When it was last played.
    public var lastPlayedDate: Date? { storage.lastPlayedDate }
    /// Loudness measured by ``MediaLibrary/analyze()``, or nil before analysis.
    public var loudness: Loudness? { storage.loudness }
    /// False while the item's folder cannot be reached (an unmounted drive, a
    /// folder that cannot be read): the item keeps its place, play counts and
    /// playlists until the next scan that reaches the folder again finds it.
    public var isAvailable: Bool { storage.isAvailable }
    var artworkSource: MediaItemArtwork.Source? { storage.artworkSource }
    var artworkWidth: Int { storage.artworkWidth }
    var artworkHeight: Int { storage.artworkHeight }

    /// Whether both are the same item of the same library (by persistent ID).
    ///
    /// - Parameters:
    ///   - lhs: An item.
    ///   - rhs: Another item.
    public static func == (lhs: MediaItem, rhs: MediaItem) -> Bool {
        let a = lhs.storage
        let b = rhs.storage
        return a === b
            || (a.persistentID == b.persistentID && a.mediaType == b.mediaType && a.title == b.title
                && a.artist == b.artist && a.albumTitle == b.albumTitle && a.albumArtistTag == b.albumArtistTag
                && a.genre == b.genre && a.composer == b.composer && a.albumTrackNumber == b.albumTrackNumber
                && a.discNumber == b.discNumber && a.playbackDuration == b.playbackDuration
                && a.releaseDate == b.releaseDate && a.isCompilation == b.isCompilation && a.path == b.path
                && a.playCount == b.playCount && a.skipCount == b.skipCount && a.lastPlayedDate == b.lastPlayedDate
                && a.loudness == b.loudness && a.artworkSource == b.artworkSource && a.artworkWidth == b.artworkWidth
                && a.artworkHeight == b.artworkHeight)
    }

    /// Hashes the item's identity, as ``==`` compares it.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(persistentID)
        hasher.combine(path)
        hasher.combine(playCount)
    }

    /// `Identifiable`: the persistent ID.
    public var id: UInt64 { persistentID }

    /// The album's artist, or the artist when the file names no album artist.
    public var albumArtist: String? { albumArtistTag ?? artist }

    /// The file.
    public var assetURL: URL { URL(fileURLWithPath: path) }

    /// The artwork: the picture embedded in the file, else a `cover` or `folder`
    /// JPEG or PNG beside it; nil when there is none (show a placeholder).
    public var artwork: MediaItemArtwork? {
        artworkSource.map { MediaItemArtwork(source: $0, bounds: .init(width: artworkWidth, height: artworkHeight)) }
    }

    /// The value of `property`, typed as ``MediaItemProperty`` documents, or nil when unknown.
    ///
    /// - Parameter property: The property to read.
    /// - Returns: Its value, or nil when the item does not have it.
    public func value(forProperty property: MediaItemProperty) -> (any Sendable)? {
        switch property {
        case .persistentID: persistentID
        case .mediaType: mediaType
        case .title: title
        case .artist: artist
        case .albumTitle: albumTitle
        case .albumArtist: albumArtist
        case .genre: genre
        case .composer: composer
        case .albumTrackNumber: albumTrackNumber
        case .discNumber: discNumber
        case .playbackDuration: playbackDuration
        case .releaseDate: releaseDate
        case .isCompilation: isCompilation
        case .assetURL: assetURL
        case .artwork: artwork
        case .playCount: playCount
        case .skipCount: skipCount
        case .lastPlayedDate: lastPlayedDate
        default: nil
        }
    }

    /// Whether predicates may use `property` (see ``MediaItemProperty/isFilterable``).
    ///
    /// - Parameter property: The property a predicate would test.
    /// - Returns: True when a ``MediaPropertyPredicate`` may use it.
    public static func canFilter(by property: MediaItemProperty) -> Bool { property.isFilterable }

    /// The text value of a grouping property, for collections and sections.
    func groupingText(_ property: MediaItemProperty) -> String? {
        switch property {
        case .title: title
        case .artist: artist
        case .albumTitle: albumTitle
        case .albumArtist: albumArtist
        case .genre: genre
        case .composer: composer
        default: nil
        }
    }
}
