import BackbeatMedia

/// A song of a replayed ``MusicPlayer`` queue: what a capture kept of the
/// game's item (its identity, titles and asset). Two are the same song when
/// their persistent ids and titles are, as the game's items were.
package struct CapturedMusicItem: MusicItem {
    package let asset: AudioAsset
    package let persistentID: UInt64
    package let title: String
    package let artist: String?
    package let albumTitle: String?
    package let playbackDuration: MediaTime

    /// An item as a capture holds it.
    ///
    /// - Parameters:
    ///   - asset: The song's asset.
    ///   - persistentID: The game's item's persistent id.
    ///   - title: Its title.
    ///   - artist: Its artist.
    ///   - albumTitle: Its album's title.
    ///   - playbackDuration: Its length as the game's item gave it.
    package init(
        asset: AudioAsset, persistentID: UInt64, title: String, artist: String?, albumTitle: String?,
        playbackDuration: MediaTime
    ) {
        self.asset = asset
        self.persistentID = persistentID
        self.title = title
        self.artist = artist
        self.albumTitle = albumTitle
        self.playbackDuration = playbackDuration
    }

    package static func == (a: CapturedMusicItem, b: CapturedMusicItem) -> Bool {
        a.persistentID == b.persistentID && a.title == b.title
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(persistentID)
        hasher.combine(title)
    }
}
