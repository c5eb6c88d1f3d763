import Foundation

/// What a scan did: counts of files added, changed, removed and unchanged,
/// and every file it skipped with the reason.
public struct ScanReport: Sendable, Equatable {
    /// A file the scan did not index, or a playlist entry it dropped.
    public struct Skipped: Sendable, Equatable, CustomStringConvertible {
        /// The file (for a playlist entry, the playlist).
        public let url: URL
        /// Why, in one line.
        public let reason: String
        public var description: String { "\(url.path): \(reason)" }
    }

    /// New items.
    public internal(set) var added = 0
    /// Items whose file changed since the last scan.
    public internal(set) var changed = 0
    /// Items whose file is gone.
    public internal(set) var removed = 0
    /// Items kept but marked unavailable because their folder could not be
    /// reached (a missing or unreadable root or folder); see ``MediaItem/isAvailable``.
    public internal(set) var unavailable = 0
    /// Items that were unavailable and were found again.
    public internal(set) var restored = 0
    /// Files that were already indexed and have not changed.
    public internal(set) var unchanged = 0
    /// Files skipped, with the reason: unreadable, duplicate, symlink loop...
    public internal(set) var skipped: [Skipped] = []
    /// Playlists read.
    public internal(set) var playlists = 0
    /// Playlist entries dropped (missing files, paths outside the roots), and unreadable playlists.
    public internal(set) var playlistProblems: [Skipped] = []
    /// Problems that did not stop a file from being indexed, such as a repaired tag.
    public internal(set) var warnings: [Skipped] = []
    /// Whether the playlists changed.
    public internal(set) var playlistsChanged = false

    /// Whether the library differs from before the scan.
    public var hasChanges: Bool { added + changed + removed + unavailable + restored > 0 || playlistsChanged }
}
