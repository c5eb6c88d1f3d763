import Backbeat
import BackbeatSupport
import BackbeatTestFixtures
import Foundation
import GRDB
import Testing

@testable import BackbeatLibrary

/// The index holds what a player cannot get back (play counts, playlists):
/// only damage that SQLite itself reports moves it aside; everything else is
/// a typed error that changes nothing.
@Suite struct LibraryIndexSafetyTests {
    static func library(in directory: URL, files: Int = 3) throws -> (URL, URL) {
        let root = directory.appendingPathComponent("music")
        for i in 0..<files {
            try LibraryFixture.write(
                root.appendingPathComponent("song\(i).ogg"), tags: AudioTags(title: "Song \(i)"),
                frequency: 300 + Double(i) * 50)
        }
        return (root, directory.appendingPathComponent("library.sqlite"))
    }

    static func playCounts(_ library: MediaLibrary) throws -> [String: Int] {
        Dictionary(uniqueKeysWithValues: try MediaQuery.songs(in: library).items.map { ($0.title, $0.playCount) })
    }

    @Test func aNewerSchemaIsATypedErrorAndKeepsThePlayCounts() throws {
        try withTemporaryDirectory { directory in
            let (root, index) = try Self.library(in: directory)
            do {
                let library = try MediaLibrary(roots: [root], index: .file(index))
                _ = try library.scan()
                let song = try #require(try MediaQuery.songs(in: library).items.first { $0.title == "Song 1" })
                try library.recordPlay(of: song, at: Date(timeIntervalSince1970: 1_000))
            }
            try DatabaseQueue(path: index.path).write {
                try $0.execute(
                    sql: "UPDATE meta SET value = ? WHERE key = 'version'",
                    arguments: [String(LibraryIndex.schemaVersion + 1)])
            }
            #expect { try MediaLibrary(roots: [root], index: .file(index)) } throws: {
                ($0 as? BackbeatError)?.code == .indexNewerVersion
            }
            #expect(!FileManager.default.fileExists(atPath: index.path + ".broken"))

            try DatabaseQueue(path: index.path).write {
                try $0.execute(
                    sql: "UPDATE meta SET value = ? WHERE key = 'version'",
                    arguments: [String(LibraryIndex.schemaVersion)])
            }
            let reopened = try MediaLibrary(roots: [root], index: .file(index))
            #expect(reopened.indexWarning == nil)
            #expect(try Self.playCounts(reopened)["Song 1"] == 1)
        }
    }

    /// A value of the wrong type or out of range in the index (written by
    /// another program, or damage SQLite does not notice) is a typed error
    /// from the query or scan that reads it, never a trap, and moves nothing.
    @Test(arguments: [
        "UPDATE items SET duration_timescale = 99999999999",
        "UPDATE items SET title = x'00ff'",
        "UPDATE items SET track = 'three'",
        "UPDATE items SET available = 'maybe'",
        "UPDATE items SET mtime = 'yesterday'",
        "UPDATE items SET size = 'big'",
        "UPDATE playlists SET name = x'ff'",
    ])
    func aValueOfTheWrongTypeInTheIndexIsATypedError(_ tamper: String) throws {
        try withTemporaryDirectory { directory in
            let (root, index) = try Self.library(in: directory)
            try """
            #EXTM3U
            song0.ogg
            """.write(to: root.appendingPathComponent("list.m3u8"), atomically: true, encoding: .utf8)
            _ = try MediaLibrary(roots: [root], index: .file(index)).scan()
            try DatabaseQueue(path: index.path).write { try $0.execute(sql: tamper) }

            let library = try MediaLibrary(roots: [root], index: .file(index))
            let error = #expect(throws: BackbeatError.self) {
                _ = try MediaQuery.songs(in: library).items
                _ = try MediaQuery.playlists(in: library).playlists
                _ = try library.scan()
            }
            #expect(error?.code == .indexFailed)
            #expect(error?.description.contains("\n") == false, "\(String(describing: error))")
            #expect(!FileManager.default.fileExists(atPath: index.path + ".broken"))
        }
    }

    /// Another connection's write transaction makes a write wait (busy
    /// timeout), then fail with `.indexBusy`; a reopen meanwhile moves nothing.
    @Test func aBusyIndexWaitsThenIsATypedErrorAndNothingIsMoved() throws {
        try withTemporaryDirectory { directory in
            let (root, index) = try Self.library(in: directory)
            let library = try MediaLibrary(
                roots: [root], index: .file(index), source: LibraryCodecs.source, busyTimeout: 0.2)
            _ = try library.scan()
            let song = try #require(try MediaQuery.songs(in: library).items.first)

            var holding = Configuration()
            holding.allowsUnsafeTransactions = true  // a transaction left open across accesses, as another process may
            let other = try DatabaseQueue(path: index.path, configuration: holding)
            try other.writeWithoutTransaction {
                try $0.execute(sql: "BEGIN IMMEDIATE; UPDATE generation SET value = value")
            }
            #expect { try library.recordPlay(of: song, at: Date()) } throws: {
                ($0 as? BackbeatError)?.code == .indexBusy
            }
            let second = try MediaLibrary(
                roots: [root], index: .file(index), source: LibraryCodecs.source, busyTimeout: 0.2)
            #expect(second.indexWarning == nil)
            #expect(!FileManager.default.fileExists(atPath: index.path + ".broken"))
            try other.writeWithoutTransaction { try $0.execute(sql: "COMMIT") }

            try library.recordPlay(of: song, at: Date())
            #expect(try Self.playCounts(second)[song.title] == 1)
        }
    }

    /// The music player's plays are written on the library's queue, not on
    /// the engine's thread: while another program holds the index, reporting
    /// a play returns at once; the write lands when the index is free, and
    /// one that cannot land is reported, not dropped.
    @Test func playsFromThePlayerWaitOnTheLibrarysQueueAndFailuresAreReported() throws {
        try withTemporaryDirectory { directory in
            let (root, index) = try Self.library(in: directory)
            let library = try MediaLibrary(
                roots: [root], index: .file(index), source: LibraryCodecs.source, busyTimeout: 0.2)
            _ = try library.scan()
            let song = try #require(try MediaQuery.songs(in: library).items.first)
            let history = LibraryPlayHistory(library: library)

            var holding = Configuration()
            holding.allowsUnsafeTransactions = true
            let other = try DatabaseQueue(path: index.path, configuration: holding)
            try other.writeWithoutTransaction {
                try $0.execute(sql: "BEGIN IMMEDIATE; UPDATE generation SET value = value")
            }
            history.recordPlay(of: song, at: Date())  // returns with the index still held
            library.waitForStatistics()  // three attempts, each waiting out the busy timeout
            #expect(library.statisticsWriteFailures.map(\.code) == [.indexBusy])

            history.recordPlay(of: song, at: Date())
            try other.writeWithoutTransaction { try $0.execute(sql: "COMMIT") }
            history.recordSkip(of: song)
            library.waitForStatistics()
            #expect(library.statisticsWriteFailures.count == 1)
            let stored = try library.item(persistentID: song.persistentID)
            #expect(stored.playCount == 1 && stored.skipCount == 1)
        }
    }

    /// Two processes at once: `backbeat library scan` rescanning a changing
    /// folder while this one records plays. Every scan succeeds and no play is lost.
    @Test func twoProcessesScanAndRecordPlaysAndNothingIsLost() throws {
        try withTemporaryDirectory { directory in
            let (root, index) = try Self.library(in: directory, files: 20)
            let library = try MediaLibrary(roots: [root], index: .file(index))
            _ = try library.scan()
            let songs = try MediaQuery.songs(in: library).items.filter { $0.title.hasPrefix("Song") }
            #expect(songs.count == 20)

            let scans = LockedValueBox<[Int32]>([])
            let scanner = Thread {
                for round in 0..<6 {
                    // Each scan has something to write: a file comes and goes.
                    let extra = root.appendingPathComponent("extra.ogg")
                    if round % 2 == 0 {
                        try? LibraryFixture.write(extra, tags: AudioTags(title: "Extra"), frequency: 900)
                    } else {
                        try? FileManager.default.removeItem(at: extra)
                    }
                    let status =
                        (try? BackbeatTool.run(["library", "scan", root.path, "--index", index.path]))?.status ?? -1
                    scans.withLockedValue { $0.append(status) }
                }
            }
            scanner.start()
            var recorded = 0
            while scans.withLockedValue({ $0.count }) < 6 {
                try library.recordPlay(of: songs[recorded % songs.count], at: Date())
                recorded += 1
                // A play every few milliseconds, as fast as a game could ever
                // record them; back to back with no pause, the scan's busy
                // handler could find the lock taken at every retry for 5 s.
                Thread.sleep(forTimeInterval: 0.003)
            }
            #expect(scans.withLockedValue { $0 } == [0, 0, 0, 0, 0, 0])
            #expect(recorded > 0)
            let counts = try Self.playCounts(try MediaLibrary(roots: [root], index: .file(index)))
            #expect(songs.map { counts[$0.title] ?? 0 }.reduce(0, +) == recorded)
        }
    }
}
