/// A playlist read from an M3U/M3U8, PLS or XSPF file in the library's roots.
/// Entries naming missing files or paths outside the roots are skipped and
/// reported by the scan.
public struct MediaPlaylist: Hashable, Sendable, Identifiable {
    /// Kinds of playlist.
    public struct Attributes: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        /// Creates attributes from their bits.
        ///
        /// - Parameter rawValue: The attributes' bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Made on the device from a queue.
        public static let onTheGo = Attributes(rawValue: 1 << 0)
        /// Defined by rules rather than a list.
        public static let smart = Attributes(rawValue: 1 << 1)
    }

    /// A stable ID: a hash of the playlist file's path within its root.
    public let persistentID: UInt64
    /// The playlist's name: its own title (`#PLAYLIST:`, XSPF `<title>`), else the file name.
    public let name: String
    /// The playlist's kind. Playlists read from files are plain lists, so this is empty.
    public let attributes: Attributes
    /// The items, in playlist order.
    public let collection: MediaItemCollection

    /// `Identifiable`: the persistent ID.
    public var id: UInt64 { persistentID }
    /// The items, in playlist order.
    public var items: [MediaItem] { collection.items }
    /// The number of items.
    public var count: Int { collection.count }
    /// The first item.
    public var representativeItem: MediaItem? { collection.representativeItem }
}
