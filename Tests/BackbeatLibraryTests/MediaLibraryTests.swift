import Backbeat
import BackbeatLibrary
import BackbeatTestFixtures
import Foundation
import GRDB
import Testing

@testable import BackbeatLibrary

@Suite struct MediaLibraryTests {
    @Test func persistentIDSurvivesRenameMoveAndRescanAndKeepsPlayStatistics() throws {
        try withFixtureLibrary { library, root, urls in
            let before = try library.item(
                persistentID: try MediaQuery.songs(in: library).items.first { $0.title == "Something" }!.persistentID)
            try library.recordPlay(of: before, at: Date(timeIntervalSince1970: 1_000_000))
            try library.recordPlay(of: before, at: Date(timeIntervalSince1970: 2_000_000))
            try library.recordSkip(of: before)

            let rescan = try library.scan()
            #expect(rescan.unchanged == 9 && !rescan.hasChanges)
            #expect(try library.item(persistentID: before.persistentID).assetURL == before.assetURL)

            let moved = root.appendingPathComponent("elsewhere/renamed.ogg")
            try FileManager.default.createDirectory(
                at: moved.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.moveItem(at: urls["Something"]!, to: moved)
            let report = try library.scan()
            #expect(report.added == 1 && report.removed == 1 && report.changed == 0)
            let after = try library.item(persistentID: before.persistentID)
            #expect(after.assetURL.path == moved.path)
            #expect(after.title == "Something")
            #expect(after.playCount == 2 && after.skipCount == 1)
            #expect(after.lastPlayedDate == Date(timeIntervalSince1970: 2_000_000))

            // A fresh index over the same files gives the same IDs.
            let fresh = try MediaLibrary(roots: [root], index: .inMemory)
            try fresh.scan()
            #expect(
                Set(try MediaQuery(library: fresh).items.map(\.persistentID))
                    == Set(try MediaQuery(library: library).items.map(\.persistentID)))
        }
    }

    @Test func retaggingGivesANewIDAndCarriesStatisticsOver() throws {
        try withFixtureLibrary { library, _, urls in
            let old = try MediaQuery.songs(in: library).items.first { $0.title == "Hit One" }!
            try library.recordPlay(of: old, at: Date(timeIntervalSince1970: 5))
            var tags = try LibraryFixture.tracks().first { $0.tags.title == "Hit One" }!.tags
            tags.title = "Hit Number One"
            try LibraryFixture.write(urls["Hit One"]!, tags: tags, frequency: 400)
            let report = try library.scan()
            #expect(report.changed == 1 && report.added == 0 && report.removed == 0)
            let new = try MediaQuery.songs(in: library).items.first { $0.assetURL == old.assetURL }!
            #expect(new.title == "Hit Number One")
            #expect(new.persistentID != old.persistentID)
            #expect(new.playCount == 1)
            #expect(throws: BackbeatError.self) { try library.item(persistentID: old.persistentID) }
        }
    }

    @Test func changeEventsFireOnAddRemoveAndChangeOnly() async throws {
        try await withTemporaryDirectoryAsync { directory in
            try LibraryFixture.write(
                directory.appendingPathComponent("a.ogg"), tags: AudioTags(title: "A"), frequency: 500)
            let library = try MediaLibrary(roots: [directory], index: .inMemory)
            var events = library.events().makeAsyncIterator()

            // Not generating: a scan that changes things sends nothing.
            #expect(try library.scan().added == 1)
            library.beginGeneratingLibraryChangeNotifications()
            #expect(!(try library.scan().hasChanges))  // unchanged: no event
            let firstDate = library.lastModifiedDate
            #expect(firstDate > .distantPast)

            try LibraryFixture.write(
                directory.appendingPathComponent("b.ogg"), tags: AudioTags(title: "B"), frequency: 510)
            try library.scan()
            let added = await events.next()
            #expect(added?.added == 1 && added?.removed == 0 && added?.changed == 0)
            #expect(added?.lastModifiedDate == library.lastModifiedDate)

            try LibraryFixture.write(
                directory.appendingPathComponent("a.ogg"), tags: AudioTags(title: "A2"), frequency: 500)
            try library.scan()
            let changed = await events.next()
            #expect(changed?.changed == 1 && changed?.added == 0)

            try FileManager.default.removeItem(at: directory.appendingPathComponent("b.ogg"))
            try library.scan()
            let removed = await events.next()
            #expect(removed?.removed == 1 && removed?.added == 0)

            library.endGeneratingLibraryChangeNotifications()
            try FileManager.default.removeItem(at: directory.appendingPathComponent("a.ogg"))
            #expect(try library.scan().removed == 1)
            library.beginGeneratingLibraryChangeNotifications()
            #expect(!(try library.scan().hasChanges))
            try LibraryFixture.write(
                directory.appendingPathComponent("c.ogg"), tags: AudioTags(title: "C"), frequency: 520)
            try library.scan()
            // The next event is this add: nothing was queued for the removal while not generating.
            let next = await events.next()
            #expect(next?.added == 1 && next?.removed == 0)
        }
    }

    @Test func queriesRunConcurrentlyWithAScan() async throws {
        try await withTemporaryDirectoryAsync { directory in
            let root = directory.appendingPathComponent("music")
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("lists"), withIntermediateDirectories: true)
            try LibraryFixture.make(in: root)
            let library = try MediaLibrary(
                roots: [root], index: .file(directory.appendingPathComponent("index.sqlite")))
            try library.scan()
            // More files for the next scan to add while queries run.
            for i in 0..<12 {
                try LibraryFixture.write(
                    root.appendingPathComponent("extra/\(i).ogg"),
                    tags: AudioTags(title: "Extra \(i)", artist: "Extra"), frequency: 600 + Double(i) * 10)
            }
            let counts = try await withThrowingTaskGroup(of: [Int].self) { group in
                group.addTask {
                    _ = try library.scan()
                    return []
                }
                for _ in 0..<3 {
                    group.addTask {
                        var seen: [Int] = []
                        for _ in 0..<20 {
                            let all = try MediaQuery(library: library).items.count
                            var extra = MediaQuery(library: library)
                            try extra.addFilterPredicate(MediaPropertyPredicate(value: "extra", property: .artist))
                            let extras = try extra.items.count
                            // Each query sees the library before or after the scan, never half of it
                            // (the scan may land between the two queries, so each is checked alone).
                            #expect(all == 9 || all == 21)
                            #expect(extras == 0 || extras == 12)
                            _ = try MediaQuery.albums(in: library).collections
                            seen.append(all)
                        }
                        return seen
                    }
                }
                var all: [Int] = []
                for try await counts in group { all += counts }
                return all
            }
            #expect(counts.count == 60)
            #expect(try library.itemCount() == 21)
        }
    }

    /// ext4 keeps modification times up to the year 2446; in nanoseconds,
    /// anything after 2262 is beyond Int64. Such a file is scanned, and a
    /// change to it is still seen.
    @Test func aFileDatedPast2262IsScannedAndItsChangesSeen() throws {
        try withFixtureLibrary { library, _, urls in
            let url = try #require(urls["An Apple"])
            func setModificationTime(seconds: Int, nanoseconds: Int) throws {
                var times = [
                    timespec(tv_sec: seconds, tv_nsec: nanoseconds), timespec(tv_sec: seconds, tv_nsec: nanoseconds),
                ]
                #expect(utimensat(AT_FDCWD, url.path, &times, 0) == 0, "utimensat: \(errno)")
                var st = stat()
                #expect(stat(url.path, &st) == 0 && st.st_mtim.tv_sec == seconds && st.st_mtim.tv_nsec == nanoseconds)
            }
            try setModificationTime(seconds: 10_413_792_000, nanoseconds: 5)  // 2300-01-01
            let first = try library.scan()
            #expect(first.changed == 1 && first.skipped.isEmpty)
            #expect(try library.scan().changed == 0)
            try setModificationTime(seconds: 15_032_385_534, nanoseconds: 0)  // 2446, near ext4's last second
            #expect(try library.scan().changed == 1)
            try setModificationTime(seconds: 15_032_385_534, nanoseconds: 1)
            #expect(try library.scan().changed == 1)
            let item = try #require(try MediaQuery.songs(in: library).items.first { $0.title == "An Apple" })
            #expect(item.isAvailable)
        }
    }

    /// tmpfs lets a sparse file claim up to 2^63 - 1 bytes; the content ID's
    /// window offsets (a quarter, a half, three quarters of the length) must
    /// not overflow on one.
    @Test(.enabled(if: FileManager.default.isWritableFile(atPath: "/dev/shm")))
    func anExabyteSparseFileIsSkippedWithoutTrapping() throws {
        let root = URL(fileURLWithPath: "/dev/shm").appendingPathComponent("backbeat-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let huge = root.appendingPathComponent("huge.wav")
        #expect(FileManager.default.createFile(atPath: huge.path, contents: nil))
        let length: Int64 = 1 << 62  // 4 EiB, nothing stored
        let fd = open(huge.path, O_RDWR)
        try #require(fd >= 0)
        defer { close(fd) }
        try #require(ftruncate(fd, off_t(length)) == 0, "ftruncate: \(errno)")

        let id = try ContentIdentity.persistentID(descriptor: fd, length: length, url: huge)
        #expect(id != 0)
        #expect(try ContentIdentity.persistentID(descriptor: fd, length: length, url: huge) == id)

        let library = try MediaLibrary(roots: [root], index: .inMemory)
        let report = try library.scan()
        #expect(report.added == 0)
        #expect(report.skipped.map(\.url.lastPathComponent) == ["huge.wav"])
    }

    @Test func unreadableDuplicateAndLoopingFilesAreSkippedAndReported() throws {
        try withTemporaryDirectory { directory in
            try LibraryFixture.write(
                directory.appendingPathComponent("good.ogg"), tags: AudioTags(title: "Good"), frequency: 500)
            try FileManager.default.copyItem(
                at: directory.appendingPathComponent("good.ogg"),
                to: directory.appendingPathComponent("copy.ogg"))
            try Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(
                to: directory.appendingPathComponent("garbage.ogg"))
            try Data().write(to: directory.appendingPathComponent("empty.wav"))
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("sub"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: directory.appendingPathComponent("sub/loop").path,
                withDestinationPath: directory.path)
            let library = try MediaLibrary(roots: [directory], index: .inMemory)
            let report = try library.scan()
            #expect(report.added == 1)
            #expect(try library.itemCount() == 1)
            let reasons = Dictionary(
                report.skipped.map { ($0.url.lastPathComponent, $0.reason) }, uniquingKeysWith: { $0 + "; " + $1 })
            #expect(reasons["good.ogg"]?.contains("duplicate of") == true)  // copy.ogg sorts first and wins
            #expect(reasons["garbage.ogg"] != nil)
            #expect(reasons["empty.wav"] != nil)
            #expect(reasons["loop"]?.contains("symbolic link loop") == true)
            #expect(report.skipped.count == 4)
        }
    }

    @Test func hostileTagsAreCutAndRepaired() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("long.ogg")
            let huge = String(repeating: "x", count: 1 << 20)
            try LibraryFixture.write(url, tags: AudioTags(title: huge, artist: "Artist\u{7}Name\u{1B}"), frequency: 500)
            // Invalid UTF-8 in a comment: written as a placeholder, then patched in place (with the page CRC fixed).
            let raw = directory.appendingPathComponent("raw.ogg")
            try LibraryFixture.write(raw, tags: AudioTags(artist: "Bad QQQ Bytes"), frequency: 510)
            try OggPatch.replace(Array("QQQ".utf8), with: [0xC3, 0x28, 0xFF], in: raw)
            let library = try MediaLibrary(roots: [directory], index: .inMemory)
            let report = try library.scan()
            #expect(report.added == 2)
            let items = try MediaQuery(library: library).items
            let long = try #require(items.first { $0.assetURL.lastPathComponent == "long.ogg" })
            #expect(long.title.utf8.count == ScannedMetadata.maximumValueBytes)
            #expect(long.artist == "ArtistName")
            let bad = try #require(items.first { $0.assetURL.lastPathComponent == "raw.ogg" })
            #expect(bad.artist?.hasPrefix("Bad ") == true && bad.artist?.hasSuffix(" Bytes") == true)
            #expect(bad.artist?.contains("\u{FFFD}") == true)
            #expect(bad.title == "raw")
            #expect(report.warnings.contains { $0.url.lastPathComponent == "long.ogg" && $0.reason.contains("cut to") })
            #expect(report.warnings.contains { $0.url.lastPathComponent == "raw.ogg" && $0.reason.contains("UTF-8") })
        }
    }

    @Test func aDamagedIndexIsSetAsideWithItsWALAndAForeignOneIsLeftAlone() throws {
        try withTemporaryDirectory { directory in
            try LibraryFixture.write(
                directory.appendingPathComponent("music/a.ogg"), tags: AudioTags(title: "A"), frequency: 500)
            let root = directory.appendingPathComponent("music")
            let garbage = directory.appendingPathComponent("garbage.sqlite")
            try Data(repeating: 0x42, count: 10_000).write(to: garbage)
            try Data("committed pages".utf8).write(to: URL(fileURLWithPath: garbage.path + "-wal"))
            let first = try MediaLibrary(roots: [root], index: .file(garbage))
            #expect(first.indexWarning?.contains("rebuilt") == true)
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: garbage.path + ".broken"))
                    == Data(repeating: 0x42, count: 10_000))
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: garbage.path + ".broken-wal")) == Data("committed pages".utf8)
            )
            #expect(try first.scan().added == 1)

            // Another program's database is not ours to move: a typed error, and it stays as it was.
            let foreign = directory.appendingPathComponent("foreign.sqlite")
            let other = try DatabaseQueue(path: foreign.path)
            try other.write {
                try $0.execute(sql: "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('keep me')")
            }
            try other.close()
            #expect { try MediaLibrary(roots: [root], index: .file(foreign)) } throws: {
                ($0 as? BackbeatError)?.code == .indexForeign
            }
            #expect(!FileManager.default.fileExists(atPath: foreign.path + ".broken"))
            #expect(
                try DatabaseQueue(path: foreign.path).read { try String.fetchOne($0, sql: "SELECT text FROM notes") }
                    == "keep me")

            // A good index opens without a warning and keeps its items.
            let reopened = try MediaLibrary(roots: [root], index: .file(garbage))
            #expect(reopened.indexWarning == nil)
            #expect(try reopened.itemCount() == 1)
            #expect(try reopened.scan().unchanged == 1)
        }
    }
}
