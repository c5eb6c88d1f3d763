import Backbeat
import BackbeatTestFixtures
import Foundation
import GRDB
import Testing

@testable import BackbeatLibrary

/// A root that cannot be reached (an unmounted drive) keeps its items, marked
/// unavailable, with their play counts and playlists, until a scan reaches it again.
@Suite struct UnavailableRootTests {
    @Test func itemsOfAnUnreachableRootStayMarkedUnavailableUntilItIsBack() throws {
        try withTemporaryDirectory { directory in
            let drive = directory.appendingPathComponent("drive")
            let home = directory.appendingPathComponent("home")
            try LibraryFixture.write(
                drive.appendingPathComponent("one.ogg"), tags: AudioTags(title: "One"), frequency: 400)
            try LibraryFixture.write(
                drive.appendingPathComponent("two.ogg"), tags: AudioTags(title: "Two"), frequency: 500)
            try LibraryFixture.write(
                home.appendingPathComponent("three.ogg"), tags: AudioTags(title: "Three"), frequency: 600)
            try Data("one.ogg\ntwo.ogg\n".utf8).write(to: drive.appendingPathComponent("road.m3u"))
            let library = try MediaLibrary(
                roots: [drive, home], index: .file(directory.appendingPathComponent("index.sqlite")))
            #expect(try library.scan().added == 3)
            let one = try #require(try MediaQuery.songs(in: library).items.first { $0.title == "One" })
            try library.recordPlay(of: one, at: Date(timeIntervalSince1970: 1_000))

            // The drive is unplugged.
            let unplugged = directory.appendingPathComponent("unplugged")
            try FileManager.default.moveItem(at: drive, to: unplugged)
            let away = try library.scan()
            #expect(away.removed == 0 && away.unavailable == 2 && away.unchanged == 1)
            #expect(away.skipped.contains { $0.url.path == drive.path && $0.reason.contains("kept") })
            let songs = try MediaQuery.songs(in: library).items
            #expect(songs.count == 3)
            #expect(songs.filter { !$0.isAvailable }.map(\.title).sorted() == ["One", "Two"])
            #expect(try library.item(persistentID: one.persistentID).playCount == 1)
            let playlist = try #require(try MediaQuery.playlists(in: library).playlists.first)
            #expect(playlist.items.map(\.title) == ["One", "Two"])
            #expect(try library.scan().hasChanges == false, "a second scan while away changes nothing")

            // It is back.
            try FileManager.default.moveItem(at: unplugged, to: drive)
            let back = try library.scan()
            #expect(back.restored == 2 && back.removed == 0 && back.added == 0)
            #expect(try MediaQuery.songs(in: library).items.allSatisfy(\.isAvailable))
            #expect(try library.item(persistentID: one.persistentID).playCount == 1)

            // A file that is really gone, from a reachable root, is removed as before.
            try FileManager.default.removeItem(at: drive.appendingPathComponent("two.ogg"))
            #expect(try library.scan().removed == 1)
        }
    }

    /// An index of the first schema (no availability) opens and is migrated in place.
    @Test func anIndexOfTheFirstSchemaIsMigrated() throws {
        try withTemporaryDirectory { directory in
            let root = directory.appendingPathComponent("music")
            let index = directory.appendingPathComponent("index.sqlite")
            try LibraryFixture.write(root.appendingPathComponent("a.ogg"), tags: AudioTags(title: "A"), frequency: 440)
            do {
                let library = try MediaLibrary(roots: [root], index: .file(index))
                _ = try library.scan()
                try library.recordPlay(of: try MediaQuery.songs(in: library).items[0], at: Date())
            }
            try DatabaseQueue(path: index.path).write { db in
                try db.execute(
                    sql: "ALTER TABLE items DROP COLUMN available; UPDATE meta SET value = '1' WHERE key = 'version'")
            }
            let library = try MediaLibrary(roots: [root], index: .file(index))
            #expect(library.indexWarning == nil)
            let item = try #require(try MediaQuery.songs(in: library).items.first)
            #expect(item.isAvailable && item.playCount == 1)
            #expect(
                try DatabaseQueue(path: index.path).read {
                    try String.fetchOne($0, sql: "SELECT value FROM meta WHERE key = 'version'")
                } == "2")
        }
    }
}
