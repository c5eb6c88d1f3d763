#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The descriptive tags of an audio file: what a player shows and a media
/// library indexes.
///
/// Others may rely on this: every property is `nil` (or `artwork` empty) when
/// the file does not carry it, never an empty placeholder string; strings are
/// trimmed of surrounding whitespace; `trackNumber` and `discNumber` come from
/// the leading integer of tags like `3/12`; `artwork` holds the image bytes
/// exactly as embedded, in file order. For Ogg Vorbis and FLAC the source is
/// the Vorbis comment block (with METADATA_BLOCK_PICTURE / PICTURE artwork);
/// for other formats it is the strings libsndfile exposes (no loop points).
public struct AudioTags: Sendable, Hashable, Codable {
    /// The track's title (TITLE).
    public var title: String?
    /// The performing artist (ARTIST).
    public var artist: String?
    /// The album's title (ALBUM).
    public var albumTitle: String?
    /// The album's artist (ALBUMARTIST, or ALBUM ARTIST).
    public var albumArtist: String?
    /// The genre (GENRE).
    public var genre: String?
    /// The composer (COMPOSER).
    public var composer: String?
    /// The track's number on its disc (TRACKNUMBER).
    public var trackNumber: Int?
    /// The disc's number in the album (DISCNUMBER).
    public var discNumber: Int?
    /// The release date as written in the file, such as `1994` or `1994-05-02` (DATE).
    public var date: String?
    /// Whether the album is a compilation by various artists (COMPILATION).
    public var isCompilation: Bool?
    /// Embedded pictures, in file order.
    public var artwork: [Artwork]
    /// The tempo in beats per minute (BPM, or TEMPO), when the file carries a whole number.
    public var beatsPerMinute: Int?
    /// The loop region (LOOPSTART with LOOPLENGTH or LOOPEND, in frames), as
    /// written: not yet fitted to the file's length (``AudioAsset`` does that).
    public var loopPoints: LoopPoints?
    /// The time signature as written, such as `4/4` or `6/8` (TIMESIGNATURE).
    public var timeSignature: String?

    /// Creates tags; every field defaults to absent.
    ///
    /// - Parameters:
    ///   - title: The song's title.
    ///   - artist: The performing artist.
    ///   - albumTitle: The album's title.
    ///   - albumArtist: The album's artist, when it differs from the song's.
    ///   - genre: The genre, as the file names it.
    ///   - composer: The composer.
    ///   - trackNumber: The track's number on its disc, from 1.
    ///   - discNumber: The disc's number in the album, from 1.
    ///   - date: The release date as tagged (often a year).
    ///   - isCompilation: Whether the album is a compilation of artists.
    ///   - artwork: Embedded pictures, in file order.
    ///   - beatsPerMinute: The tempo in beats per minute.
    ///   - loopPoints: The loop region in frames, as written in the file.
    public init(
        title: String? = nil, artist: String? = nil, albumTitle: String? = nil, albumArtist: String? = nil,
        genre: String? = nil, composer: String? = nil, trackNumber: Int? = nil, discNumber: Int? = nil,
        date: String? = nil, isCompilation: Bool? = nil, artwork: [Artwork] = [],
        beatsPerMinute: Int? = nil, loopPoints: LoopPoints? = nil
    ) {
        self.title = title
        self.artist = artist
        self.albumTitle = albumTitle
        self.albumArtist = albumArtist
        self.genre = genre
        self.composer = composer
        self.trackNumber = trackNumber
        self.discNumber = discNumber
        self.date = date
        self.isCompilation = isCompilation
        self.artwork = artwork
        self.beatsPerMinute = beatsPerMinute
        self.loopPoints = loopPoints
    }

    /// Whether no tag at all is present.
    public var isEmpty: Bool { self == AudioTags() }
}

/// A picture embedded in an audio file, such as a cover.
public struct Artwork: Sendable, Hashable, Codable {
    /// The picture's role, as numbered by ID3v2 APIC and FLAC (3 is the front cover).
    public var pictureType: Int
    /// The MIME type, such as `image/png`.
    public var mimeType: String
    /// A free-text description.
    public var description: String
    /// Width in pixels, as declared by the file (0 when unknown).
    public var width: Int
    /// Height in pixels, as declared by the file (0 when unknown).
    public var height: Int
    /// The image file's bytes.
    public var data: Data

    /// The front cover picture type.
    public static let frontCover = 3

    /// Creates a picture.
    ///
    /// - Parameters:
    ///   - data: The encoded image (PNG or JPEG).
    ///   - mimeType: The image's type, such as `image/png`.
    ///   - width: The width in pixels.
    ///   - height: The height in pixels.
    ///   - pictureType: The ID3/FLAC picture type, ``frontCover`` (3) by default.
    ///   - description: A free description.
    public init(
        data: Data, mimeType: String, width: Int, height: Int, pictureType: Int = Artwork.frontCover,
        description: String = ""
    ) {
        self.data = data
        self.mimeType = mimeType
        self.width = width
        self.height = height
        self.pictureType = pictureType
        self.description = description
    }
}
