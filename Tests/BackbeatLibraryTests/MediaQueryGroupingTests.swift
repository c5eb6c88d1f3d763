import Backbeat
import BackbeatLibrary
import Foundation
import GRDB
import Testing

@testable import BackbeatLibrary

/// Collections grouped by SQLite (`GROUP BY` over sort name and key, first
/// items only) are the collections a run over every ordered item makes.
@Suite struct MediaQueryGroupingTests {
    static let groupings: [MediaGrouping] = [.album, .artist, .albumArtist, .composer, .genre, .podcastTitle]

    /// 600 synthetic items: 13 artists ("The Artist 0", "Artist 1"...), albums of 7 tracks, 8 genres, 13 composers.
    func withSyntheticLibrary(_ body: (MediaLibrary) throws -> Void) throws {
        let library = try MediaLibrary(roots: [], index: .inMemory)
        try library.insertSyntheticItemsForBenchmark(count: 600, artists: 13, tracksPerAlbum: 7)
        try body(library)
    }

    /// The reference: runs of equal group key over every item in order, each item decoded.
    func expectSameAsRuns(_ query: MediaQuery, _ comment: Comment) throws {
        let runs = try query.groups(withSortKeys: true)
        let collections = try query.collections
        #expect(collections.count == runs.count, comment)
        #expect(collections.map(\.count) == runs.map(\.items.count), comment)
        #expect(collections.map(\.representativeItem) == runs.map(\.items.first), comment)
        #expect(collections.map(\.items) == runs.map(\.items), comment)
        #expect(try query.collectionSections == MediaQuery.sections(runs.map(\.sortKey)), comment)
    }

    @Test(arguments: groupings)
    func sameCollectionsAsRunsOverEveryItem(grouping: MediaGrouping) throws {
        try withSyntheticLibrary { library in
            var query = MediaQuery(library: library)
            query.groupingType = grouping
            #expect(try query.collections.count > 1)
            try expectSameAsRuns(query, "\(grouping), no predicate")

            try query.addFilterPredicate(MediaPropertyPredicate(value: "pop", property: .genre))
            try query.addFilterPredicate(MediaPropertyPredicate(value: "1", property: .artist, comparison: .contains))
            #expect(try query.collections.count > 0)
            try expectSameAsRuns(query, "\(grouping), genre and artist predicates")
        }
    }

    @Test func adjacentBlocksWithOneKeyAreOneCollection() throws {
        try withSyntheticLibrary { library in
            // Three albums in a row by sort name; the first and second share a group key,
            // the third has the first's key but is not adjacent to it.
            let albums = try MediaQuery.albums(in: library).collections.prefix(3).map {
                Int64(bitPattern: $0.representativeItem!.persistentID)
            }
            try library.index.write("test") { db in
                let keys = try Int64.fetchAll(
                    db, sql: "SELECT album_group FROM items WHERE id IN (?, ?) ORDER BY album_sort",
                    arguments: [albums[0], albums[2]])
                try db.execute(
                    sql: "UPDATE items SET album_group = ? WHERE album_group = ?", arguments: [keys[0], keys[1]])
                let second = try Int64.fetchOne(
                    db, sql: "SELECT album_group FROM items WHERE id = ?", arguments: [albums[1]])!
                try db.execute(
                    sql: "UPDATE items SET album_group = ? WHERE album_group = ?", arguments: [keys[0], second])
                try db.execute(
                    sql:
                        "UPDATE items SET album_group = ? WHERE id IN (SELECT id FROM items WHERE album_group = ? ORDER BY album_sort DESC LIMIT 7)",
                    arguments: [keys[0] &+ 1, keys[0]])
            }
            let query = MediaQuery.albums(in: library)
            let collections = try query.collections
            #expect(collections[0].count == 14)
            #expect(collections[1].count == 7)
            try expectSameAsRuns(query, "merged blocks")
        }
    }

    @Test func groupingDecodesOnlyTheFirstItems() throws {
        try withSyntheticLibrary { library in
            let albums = try MediaQuery.albums(in: library).collections
            #expect(albums.count == 600 / 7 + 1)
            #expect(library.index.cache.count == albums.count)
            #expect(albums[5].items.count == 7)
            #expect(library.index.cache.count == albums.count + 6)
        }
    }

    @Test func itemsReadAfterAChangeAreTheLibrarysThen() throws {
        try withSyntheticLibrary { library in
            let albums = try MediaQuery.albums(in: library).collections
            let removed = try #require(albums[2].representativeItem)
            try library.index.write("test") { db in
                try db.execute(
                    sql: "DELETE FROM items WHERE id = ?", arguments: [Int64(bitPattern: removed.persistentID)])
            }
            #expect(albums[2].count == 7)
            #expect(albums[2].items.count == 6)
            #expect(!albums[2].items.contains(removed))
        }
    }
}
