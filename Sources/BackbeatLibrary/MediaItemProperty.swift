import BackbeatMedia
import BackbeatSupport

/// A property of a ``MediaItem``, for ``MediaItem/value(forProperty:)``,
/// predicates and grouping. The names are the Swift accessor names.
public struct MediaItemProperty: Hashable, Sendable, CustomStringConvertible {
    /// The accessor's name, such as `albumTitle`.
    public let name: String
    /// The index column holding the folded value predicates compare against, when filterable.
    let filterColumn: String?

    private init(_ name: String, filter: String? = nil) {
        self.name = name
        self.filterColumn = filter
    }

    public var description: String { name }

    /// Whether predicates may use this property. Play statistics, dates,
    /// durations, URLs and artwork are not filterable; a predicate on them
    /// throws ``BackbeatError/Code/nonFilterableProperty``.
    public var isFilterable: Bool { filterColumn != nil }

    /// The property with this Swift name, or nil.
    ///
    /// - Parameter name: The property's Swift name, such as `albumTitle`; an unknown name gives nil.
    public init?(name: String) {
        guard let match = Self.all.first(where: { $0.name == name }) else { return nil }
        self = match
    }

    /// Every property, in documentation order.
    public static let all: [MediaItemProperty] = [
        .persistentID, .mediaType, .title, .artist, .albumTitle, .albumArtist, .genre, .composer,
        .albumTrackNumber, .discNumber, .playbackDuration, .releaseDate, .isCompilation, .assetURL,
        .artwork, .playCount, .skipCount, .lastPlayedDate,
    ]

    /// The content-derived identifier (`UInt64`). Filterable.
    public static let persistentID = Self("persistentID", filter: "id")
    /// ``MediaType``. Filterable; matches when the item's type intersects the value.
    public static let mediaType = Self("mediaType", filter: "media_type")
    /// The title (`String`). Filterable.
    public static let title = Self("title", filter: "title_key")
    /// The performing artist (`String`). Filterable.
    public static let artist = Self("artist", filter: "artist_key")
    /// The album's title (`String`). Filterable.
    public static let albumTitle = Self("albumTitle", filter: "album_key")
    /// The album's artist (`String`), falling back to the artist. Filterable.
    public static let albumArtist = Self("albumArtist", filter: "album_artist_key")
    /// The genre (`String`). Filterable.
    public static let genre = Self("genre", filter: "genre_key")
    /// The composer (`String`). Filterable.
    public static let composer = Self("composer", filter: "composer_key")
    /// The track number on its disc (`Int`, 0 when unknown). Filterable.
    public static let albumTrackNumber = Self("albumTrackNumber", filter: "track")
    /// The disc number (`Int`, 0 when unknown). Filterable.
    public static let discNumber = Self("discNumber", filter: "disc")
    /// The duration (``MediaTime``). Not filterable.
    public static let playbackDuration = Self("playbackDuration")
    /// The release date (`Date`). Not filterable.
    public static let releaseDate = Self("releaseDate")
    /// Whether the item is part of a compilation (`Bool`). Filterable.
    public static let isCompilation = Self("isCompilation", filter: "compilation")
    /// The file (`URL`). Not filterable.
    public static let assetURL = Self("assetURL")
    /// The artwork (``MediaItemArtwork``). Not filterable.
    public static let artwork = Self("artwork")
    /// Times played to the end (`Int`). Not filterable.
    public static let playCount = Self("playCount")
    /// Times skipped (`Int`). Not filterable.
    public static let skipCount = Self("skipCount")
    /// When it was last played (`Date`). Not filterable.
    public static let lastPlayedDate = Self("lastPlayedDate")

    /// Whether ``isFilterable`` is true for this property.
    static func canFilter(by property: MediaItemProperty) -> Bool { property.isFilterable }

    var isText: Bool {
        [Self.title, .artist, .albumTitle, .albumArtist, .genre, .composer].contains(self)
    }
}
