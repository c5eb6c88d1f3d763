import Foundation

/// One song, podcast episode or audiobook in a ``MediaLibrary``: its metadata,
/// its file, its artwork and its play statistics, as of the query that returned it.
///
/// Items are values. Archive one with `Codable` (it encodes as its
/// ``persistentID``) and decode it against a library to find it again.
public struct MediaItem: Hashable, Sendable, Identifiable {
    /// The identifier derived from the file's audio content; it survives a
    /// rescan, a rename and a move. Rewriting the file (such as editing its tags)
    /// gives it a new identity; the library carries play statistics over.
    public let persistentID: UInt64
    /// Music, podcast or audiobook.
    public let mediaType: MediaType
    /// The title, or the file name without extension when the file has none.
    public let title: String
    /// The performing artist.
    public let artist: String?
    /// The album's title.
    public let albumTitle: String?
    let albumArtistTag: String?
    /// The genre.
    public let genre: String?
    /// The composer.
    public let composer: String?
    /// The track number on its disc; 0 when unknown.
    public let albumTrackNumber: Int
    /// The disc number; 0 when unknown.
    public let discNumber: Int
    /// The duration.
    public let playbackDuration: MediaTime
    /// The release date; tags often give only a year, which becomes 1 January of it.
    public let releaseDate: Date?
    /// Whether the item belongs to a compilation.
    public let isCompilation: Bool
    let path: String
    /// How many times it was played to the end.
    public let playCount: Int
    /// How many times it was skipped.
    public let skipCount: Int
    /// When it was last played.
    public let lastPlayedDate: Date?
    /// Loudness measured by ``MediaLibrary/analyze()``, or nil before analysis.
    public let loudness: Loudness?
    let artworkSource: MediaItemArtwork.Source?
    let artworkWidth: Int
    let artworkHeight: Int

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
