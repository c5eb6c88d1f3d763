import BackbeatSupport
import BackbeatTestFixtures
import Foundation
import Testing

/// The inotify door: names in a watched folder, by editors' two ways of saving.
@Suite struct FileWatcherTests {
    @Test func followsAWriteInPlaceAndARenameOverTheFile() throws {
        try withTemporaryDirectory { dir in
            let watcher = try FileWatcher()
            try watcher.watch(directory: dir.path)
            #expect(!watcher.hasChanges && watcher.readChanges().isEmpty)
            let file = dir.appendingPathComponent("bank.json")
            try Data("one".utf8).write(to: file)
            #expect(watcher.hasChanges)
            #expect(watcher.readChanges().map(\.name) == ["bank.json"])
            let temporary = dir.appendingPathComponent(".bank.json.swp")
            try Data("two".utf8).write(to: temporary)
            #expect(rename(temporary.path, file.path) == 0)
            #expect(watcher.readChanges().map(\.name) == [".bank.json.swp", "bank.json"])
            #expect(watcher.readChanges().isEmpty, "read once")
            watcher.unwatch(directory: dir.path)
            try Data("three".utf8).write(to: file)
            #expect(watcher.readChanges().isEmpty, "not watched any more")
        }
    }

    @Test func aMissingFolderIsATypedError() throws {
        let watcher = try FileWatcher()
        let error = #expect(throws: BackbeatError.self) { try watcher.watch(directory: "/nonexistent/backbeat") }
        #expect(error?.code == .fileWatchUnavailable)
    }

    @Test func recordsCutShortOrLyingAboutTheirLengthEndTheBatch() {
        func record(wd: Int32, mask: UInt32, name: String, length: UInt32? = nil) -> [UInt8] {
            var bytes: [UInt8] = []
            let words: [UInt32] = [UInt32(bitPattern: wd), mask, 0, length ?? UInt32(name.utf8.count + 1)]
            for word in words {
                bytes += withUnsafeBytes(of: word.littleEndian) { Array($0) }
            }
            return bytes + Array(name.utf8) + [0]
        }
        var directories: [Int32: String] = [1: "/sfx"]
        var watches: [String: Int32] = ["/sfx": 1]
        let closeWrite: UInt32 = 0x8
        let good = record(wd: 1, mask: closeWrite, name: "a.wav")
        let lying = record(wd: 1, mask: closeWrite, name: "b.wav", length: 1 << 30)
        let parsed = FileWatcher.parse(
            ArraySlice(good + lying + good), directories: &directories, watches: &watches)
        #expect(parsed.map(\.name) == ["a.wav"], "a length past the end stops the batch")
        let cut = FileWatcher.parse(ArraySlice(good.prefix(10)), directories: &directories, watches: &watches)
        #expect(cut.isEmpty)
        let unknown = FileWatcher.parse(
            ArraySlice(record(wd: 9, mask: closeWrite, name: "c.wav")), directories: &directories, watches: &watches)
        #expect(unknown.isEmpty, "a descriptor not watched is ignored")
    }
}
