import Backbeat
import BackbeatLibrary
import BackbeatTestFixtures
import Foundation
import Testing

@Suite struct MediaLibraryArchivingTests {
    @Test func itemsCollectionsAndPlaylistsRoundTripAsPersistentIDs() throws {
        try withFixtureLibrary { library, _, _ in
            let album = try MediaQuery.albums(in: library).collections[1]
            let playlist = try MediaQuery.playlists(in: library).playlists[0]
            let item = album.items[0]
            let encoded = try JSONEncoder().encode(Archive(item: item, album: album, playlist: playlist))
            let json = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
            #expect((json["item"] as? NSNumber)?.uint64Value == item.persistentID)
            #expect((json["album"] as? [NSNumber])?.map(\.uint64Value) == album.items.map(\.persistentID))

            let decoder = JSONDecoder()
            decoder.userInfo[.mediaLibrary] = library
            let decoded = try decoder.decode(Archive.self, from: encoded)
            #expect(decoded.item == item)
            #expect(decoded.album == album)
            #expect(decoded.playlist == playlist)
        }
    }

    @Test func unknownIDsAndAMissingLibraryAreTypedErrors() throws {
        try withFixtureLibrary { library, _, _ in
            let decoder = JSONDecoder()
            decoder.userInfo[.mediaLibrary] = library
            let error = #expect(throws: BackbeatError.self) {
                try decoder.decode(MediaItem.self, from: Data("12345".utf8))
            }
            #expect(error?.code == .unknownPersistentID)
            #expect(throws: BackbeatError.self) {
                try decoder.decode(MediaItemCollection.self, from: Data("[1, 2]".utf8))
            }
            #expect(throws: BackbeatError.self) { try decoder.decode(MediaPlaylist.self, from: Data("7".utf8)) }
            let id = try MediaQuery(library: library).items[0].persistentID
            let missing = #expect(throws: BackbeatError.self) {
                try JSONDecoder().decode(MediaItem.self, from: Data("\(id)".utf8))
            }
            #expect(missing?.code == .libraryMissing)
        }
    }

    struct Archive: Codable {
        let item: MediaItem
        let album: MediaItemCollection
        let playlist: MediaPlaylist
    }
}
