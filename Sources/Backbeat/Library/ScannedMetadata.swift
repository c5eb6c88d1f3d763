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

    /// Sets a field from a raw tag `key=value` (Vorbis comment names, case-insensitive).
    /// Invalid UTF-8 is repaired with U+FFFD; overlong values are cut.
    mutating func apply(key rawKey: String, value rawValue: [UInt8]) {
        var bytes = rawValue[...]
        if bytes.count > Self.maximumValueBytes {
            warnings.append("tag \(rawKey) is \(bytes.count) bytes, cut to \(Self.maximumValueBytes)")
            bytes = bytes.prefix(Self.maximumValueBytes)
        }
        let value = String(decoding: bytes, as: UTF8.self)
        if value.contains("\u{FFFD}"), String(validating: bytes, as: UTF8.self) == nil {
            warnings.append("tag \(rawKey) is not valid UTF-8; repaired")
        }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines.union(.controlCharacters))
        guard !trimmed.isEmpty else { return }
        switch rawKey.uppercased() {
        case "TITLE": title = title ?? trimmed
        case "ARTIST": artist = artist ?? trimmed
        case "ALBUM": albumTitle = albumTitle ?? trimmed
        case "ALBUMARTIST", "ALBUM ARTIST", "ALBUM_ARTIST": albumArtist = albumArtist ?? trimmed
        case "GENRE": genre = genre ?? trimmed
        case "COMPOSER": composer = composer ?? trimmed
        case "TRACKNUMBER", "TRACK": trackNumber = Self.leadingNumber(trimmed)
        case "DISCNUMBER", "DISC": discNumber = Self.leadingNumber(trimmed)
        case "DATE", "YEAR": releaseDate = releaseDate ?? Self.date(trimmed)
        case "COMPILATION":
            isCompilation = ["1", "true", "yes"].contains(trimmed.lowercased())
        default: break
        }
    }

    /// `"3/12"` → 3; anything unparsable → 0.
    static func leadingNumber(_ text: String) -> Int {
        let digits = text.prefix(while: \.isASCII).prefix(while: \.isNumber).prefix(6)
        return Int(digits) ?? 0
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
