import Foundation

/// A change to a ``MediaLibrary``, delivered on ``MediaLibrary/changes`` after a
/// scan that found one, while notifications are being generated.
public struct LibraryChange: Sendable, Equatable {
    /// Items added.
    public let added: Int
    /// Items changed.
    public let changed: Int
    /// Items removed.
    public let removed: Int
    /// Whether playlists changed.
    public let playlistsChanged: Bool
    /// The library's ``MediaLibrary/lastModifiedDate`` after the change.
    public let lastModifiedDate: Date
}
