import BackbeatSupport
import Foundation
import GRDB

extension CodingUserInfoKey {
    /// The ``MediaLibrary`` that decoding a ``MediaItem``, ``MediaItemCollection``
    /// or ``MediaPlaylist`` looks its persistent IDs up in.
    public static let mediaLibrary = CodingUserInfoKey(rawValue: "Backbeat.MediaLibrary")!
}

extension Decoder {
    func mediaLibrary(_ operation: String) throws -> MediaLibrary {
        guard let library = userInfo[.mediaLibrary] as? MediaLibrary else {
            throw BackbeatError(
                .libraryMissing, operation: operation,
                reason: "set decoder.userInfo[.mediaLibrary] to the library to look items up in")
        }
        return library
    }
}

/// Archived as its persistent ID; decoding finds the item in the library
/// given as `userInfo[.mediaLibrary]`, with its current metadata.
extension MediaItem: Codable {
    /// Decodes a persistent ID and looks the item up.
    ///
    /// - Parameter decoder: A decoder whose `userInfo` holds the library under ``CodingUserInfoKey/mediaLibrary``.
    /// - Throws: ``BackbeatError/Code/unknownPersistentID`` when the library no longer has it,
    ///   ``BackbeatError/Code/libraryMissing`` without a library in `userInfo`.
    public init(from decoder: any Decoder) throws {
        let id = try decoder.singleValueContainer().decode(UInt64.self)
        self = try decoder.mediaLibrary("decode item").item(persistentID: id)
    }

    /// Encodes the persistent ID.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(persistentID)
    }
}

/// Archived as its items' persistent IDs, in order.
extension MediaItemCollection: Codable {
    /// Decodes the persistent IDs and looks every item up.
    ///
    /// - Parameter decoder: A decoder whose `userInfo` holds the library under ``CodingUserInfoKey/mediaLibrary``.
    /// - Throws: ``BackbeatError/Code/unknownPersistentID`` if any item is gone.
    public init(from decoder: any Decoder) throws {
        let ids = try decoder.singleValueContainer().decode([UInt64].self)
        let library = try decoder.mediaLibrary("decode collection")
        self.init(items: try ids.map { try library.item(persistentID: $0) })
    }

    /// Encodes the items' persistent IDs.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(items.map(\.persistentID))
    }
}

/// Archived as the playlist's persistent ID; decoding gives its current contents.
extension MediaPlaylist: Codable {
    /// Decodes a playlist ID and looks the playlist up.
    ///
    /// - Parameter decoder: A decoder whose `userInfo` holds the library under ``CodingUserInfoKey/mediaLibrary``.
    /// - Throws: ``BackbeatError/Code/unknownPersistentID`` when the library has no such playlist.
    public init(from decoder: any Decoder) throws {
        let id = try decoder.singleValueContainer().decode(UInt64.self)
        self = try decoder.mediaLibrary("decode playlist").playlist(persistentID: id)
    }

    /// Encodes the persistent ID.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(persistentID)
    }
}

extension MediaLibrary {
    /// The playlist with this persistent ID.
    ///
    /// - Parameter persistentID: The ID ``MediaPlaylist/persistentID`` gave, stable across rescans.
    /// - Returns: The playlist, read from the index now.
    /// - Throws: ``BackbeatError/Code/unknownPersistentID`` when there is none.
    public func playlist(persistentID: UInt64) throws -> MediaPlaylist {
        guard
            let playlist = try MediaQuery.playlists(in: self).playlists.first(where: { $0.persistentID == persistentID }
            )
        else {
            throw BackbeatError(
                .unknownPersistentID, operation: "find playlist",
                reason: String(format: "playlist %016llx", persistentID))
        }
        return playlist
    }
}
