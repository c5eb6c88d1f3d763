import BackbeatMedia
import Foundation

/// The track a desktop media player is playing, from its MPRIS metadata.
///
/// ``MediaItem`` describes a song in a ``MediaLibrary`` (a persistent ID, play
/// counts, a file the library scanned); a track in another program's queue has
/// none of that, so the system player reports this smaller value instead.
public struct NowPlayingInfo: Sendable, Hashable, Codable {
    /// The player's identifier for the track (`mpris:trackid`), when it gives one.
    public var trackID: String?
    /// The title (`xesam:title`).
    public var title: String?
    /// The artists, joined with ", " (`xesam:artist`).
    public var artist: String?
    /// The album (`xesam:album`).
    public var albumTitle: String?
    /// The length (`mpris:length`, microseconds), when known.
    public var playbackDuration: MediaTime?
    /// Where the artwork is (`mpris:artUrl`), usually a `file://` URL.
    public var artworkURL: URL?
    /// The track's own location (`xesam:url`).
    public var assetURL: URL?

    /// Creates a description of a track.
    ///
    /// - Parameters:
    ///   - trackID: The player's identifier for the track (`mpris:trackid`).
    ///   - title: The track's title.
    ///   - artist: The artists, joined with ", ".
    ///   - albumTitle: The album's title.
    ///   - playbackDuration: The track's length, when known.
    ///   - artworkURL: Where the artwork is, usually a `file://` URL.
    ///   - assetURL: The track's own location.
    public init(
        trackID: String? = nil, title: String? = nil, artist: String? = nil, albumTitle: String? = nil,
        playbackDuration: MediaTime? = nil, artworkURL: URL? = nil, assetURL: URL? = nil
    ) {
        self.trackID = trackID
        self.title = title
        self.artist = artist
        self.albumTitle = albumTitle
        self.playbackDuration = playbackDuration
        self.artworkURL = artworkURL
        self.assetURL = assetURL
    }

    /// Reads MPRIS metadata leniently: a field of the wrong type is left out;
    /// nil when nothing at all is readable.
    init?(metadata: [String: DBusValue]) {
        let artists = metadata["xesam:artist"]?.strings?.filter { !$0.isEmpty } ?? []
        let length = metadata["mpris:length"]?.int64.flatMap {
            $0 >= 0 ? MediaTime(value: $0, timescale: 1_000_000) : nil
        }
        self.init(
            trackID: metadata["mpris:trackid"]?.string,
            title: metadata["xesam:title"]?.string,
            artist: artists.isEmpty ? nil : artists.joined(separator: ", "),
            albumTitle: metadata["xesam:album"]?.string,
            playbackDuration: length,
            artworkURL: metadata["mpris:artUrl"]?.string.flatMap(URL.init(string:)),
            assetURL: metadata["xesam:url"]?.string.flatMap(URL.init(string:)))
        if self == NowPlayingInfo() { return nil }
    }

    /// The MPRIS metadata for this track, for Backbeat's own published player.
    func metadata(defaultTrackID: String) -> [String: DBusValue] {
        var m: [String: DBusValue] = ["mpris:trackid": .objectPath(Self.validTrackID(trackID) ?? defaultTrackID)]
        if let title { m["xesam:title"] = .string(title) }
        if let artist { m["xesam:artist"] = .strings([artist]) }
        if let albumTitle { m["xesam:album"] = .string(albumTitle) }
        if let playbackDuration, playbackDuration >= .zero {
            // The conversion saturates: a file that claims an absurd length cannot trap here.
            m["mpris:length"] = .int64(playbackDuration.converted(to: 1_000_000).value)
        }
        if let artworkURL { m["mpris:artUrl"] = .string(artworkURL.absoluteString) }
        if let assetURL { m["xesam:url"] = .string(assetURL.absoluteString) }
        return m
    }

    /// An object path made of letters, digits and underscores, or nil.
    static func validTrackID(_ id: String?) -> String? {
        guard let id, id.hasPrefix("/"), id.count > 1, !id.hasSuffix("/"), !id.contains("//"),
            id.utf8.allSatisfy({
                $0 == 0x2F || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0)
                    || (0x61...0x7A).contains($0)
            })
        else { return nil }
        return id
    }
}
