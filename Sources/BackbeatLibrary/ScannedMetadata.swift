import BackbeatMedia
import BackbeatSupport
import Foundation

/// What the scanner learns from one file's tags and stream: the single shape
/// every tag source fills, so the source can be swapped without touching the index.
struct ScannedMetadata: Sendable, Equatable {
    var title: String?
    var artist: String?
    var albumTitle: String?
    var albumArtist: String?
    var genre: String?
    var composer: String?
    var trackNumber: Int = 0
    var discNumber: Int = 0
    var releaseDate: Date?
    var isCompilation = false
    var duration: MediaTime = .zero
    /// The embedded picture's encoded bytes (JPEG or PNG), when the file has one.
    var embeddedPicture: Data?
    /// Problems that did not stop the scan, such as a truncated or repaired tag.
    var warnings: [String] = []

    /// Longest tag value kept; longer values are cut (and a warning noted),
    /// so a hostile megabyte-long tag cannot bloat the index.
    static let maximumValueBytes = 1024

    init() {}

    /// Maps the Media layer's tags, cutting overlong values and noting repaired ones.
    init(tags: AudioTags, duration: MediaTime, artworkErrors: [String]) {
        var warnings: [String] = []
        func clean(_ value: String?, _ name: String) -> String? {
            guard var value else { return nil }
            if value.utf8.count > Self.maximumValueBytes {
                warnings.append("tag \(name) is \(value.utf8.count) bytes, cut to \(Self.maximumValueBytes)")
                value = String(decoding: value.utf8.prefix(Self.maximumValueBytes), as: UTF8.self)
            }
            if value.contains("\u{FFFD}") { warnings.append("tag \(name) is not valid UTF-8; repaired") }
            value = value.filter {
                !$0.isNewline && !($0.unicodeScalars.first.map { CharacterSet.controlCharacters.contains($0) } ?? false)
            }
            value = value.trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : value
        }
        title = clean(tags.title, "TITLE")
        artist = clean(tags.artist, "ARTIST")
        albumTitle = clean(tags.albumTitle, "ALBUM")
        albumArtist = clean(tags.albumArtist, "ALBUMARTIST")
        genre = clean(tags.genre, "GENRE")
        composer = clean(tags.composer, "COMPOSER")
        trackNumber = max(0, min(tags.trackNumber ?? 0, 99_999))
        discNumber = max(0, min(tags.discNumber ?? 0, 99_999))
        releaseDate = clean(tags.date, "DATE").flatMap(Self.date)
        isCompilation = tags.isCompilation ?? false
        self.duration = duration
        let picture = tags.artwork.first { $0.pictureType == Artwork.frontCover } ?? tags.artwork.first
        embeddedPicture = picture?.data
        warnings += artworkErrors.map { "embedded picture ignored: \($0)" }
        self.warnings = warnings
    }

    /// `YYYY`, `YYYY-MM` or `YYYY-MM-DD` (UTC), else nil.
    static func date(_ text: String) -> Date? {
        let parts = text.prefix(10).split(separator: "-").map { Int($0) }
        guard let year = parts.first ?? nil, (1...9999).contains(year) else { return nil }
        var components = DateComponents()
        components.year = year
        components.month = parts.count > 1 ? (parts[1] ?? 1) : 1
        components.day = parts.count > 2 ? (parts[2] ?? 1) : 1
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components)
    }
}

/// Where the scanner gets tags, stream facts and PCM for one file. This is the
/// one seam between the library and the decoders.
protocol MediaMetadataSource: Sendable {
    /// Whether the scanner should look at a file with this (lowercased) extension.
    func handles(pathExtension: String) -> Bool
    /// Tags, duration and embedded picture; throws a ``BackbeatError`` for an unreadable file.
    func metadata(for url: URL) throws -> ScannedMetadata
    /// Decodes the file's PCM, calling `body` with interleaved Float32 chunks
    /// until it returns false or the file ends.
    func decode(_ url: URL, body: (_ format: AudioFormat, _ interleaved: [Float]) throws -> Bool) throws
}
