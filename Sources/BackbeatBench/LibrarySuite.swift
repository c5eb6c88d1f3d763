import Backbeat
import BackbeatLibrary
import BackbeatMedia
import BackbeatSupport
import Foundation

/// The media library: a cold scan and an unchanged rescan of generated,
/// tagged WAV files (written by Backbeat's own writer), then predicate
/// queries and album grouping over 100,000 indexed items.
package struct LibrarySuite: BenchSuite {
    package let name = "library"
    package let summary = "scan 10,000 tagged files cold and unchanged; query and group 100,000 items"

    /// The suite.
    package init() {}

    package func run(_ options: BenchOptions, log: (String) -> Void) throws -> [Figure] {
        let quick = options.quick
        let fileCount = quick ? 200 : 10_000
        let itemCount = quick ? 2_000 : 100_000
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "backbeat-bench-library-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = directory.appendingPathComponent("music")

        log("writing \(fileCount) tagged WAV files")
        try Self.blocking { try await Self.writeFiles(count: fileCount, root: root) }

        let rounds = options.rounds
        var scanRates: [Double] = []
        var rescans: [Double] = []
        for round in 1...rounds {
            let library = try MediaLibrary(
                roots: [root], index: .file(directory.appendingPathComponent("scan\(round).sqlite")))
            var start = monotonicNanoseconds()
            let cold = try library.scan()
            let coldSeconds = Double(monotonicNanoseconds() - start) / 1e9
            guard cold.added == fileCount else {
                throw LibraryBenchError(
                    "cold scan indexed \(cold.added) of \(fileCount) files; skipped: \(cold.skipped.prefix(3))")
            }
            start = monotonicNanoseconds()
            let rescan = try library.scan()
            let rescanSeconds = Double(monotonicNanoseconds() - start) / 1e9
            guard rescan.unchanged == fileCount, !rescan.hasChanges else {
                throw LibraryBenchError("rescan found changes")
            }
            scanRates.append(Double(fileCount) / coldSeconds)
            rescans.append(rescanSeconds)
            log(
                "round \(round): cold scan of \(fileCount) files \(String(format: "%.3f", coldSeconds)) s, unchanged rescan \(String(format: "%.3f", rescanSeconds)) s"
            )
        }

        log("indexing \(itemCount) items")
        let big = try MediaLibrary(roots: [], index: .file(directory.appendingPathComponent("big.sqlite")))
        let artists = itemCount / 100
        try big.insertSyntheticItemsForBenchmark(count: itemCount, artists: artists, tracksPerAlbum: 10)

        var queryRounds: [Double] = []
        var groupRounds: [Double] = []
        var firstRounds: [Double] = []
        var query = 0
        for round in 1...rounds {
            // Every round starts from the same state: nothing decoded since the index changed
            // (a grouping would otherwise leave items cached for the next round's queries).
            try big.markItemsChangedForBenchmark()
            var queryTimes: [Double] = []
            for _ in 0..<(quick ? 10 : 40) {
                let artist = (query * 7919) % artists
                query += 1
                let name = artist % 3 == 0 ? "the artist \(artist)" : "ARTIST \(artist)"
                let start = monotonicNanoseconds()
                var predicateQuery = MediaQuery.songs(in: big)
                try predicateQuery.addFilterPredicate(MediaPropertyPredicate(value: name, property: .artist))
                let matched = try predicateQuery.items.count
                queryTimes.append(Double(monotonicNanoseconds() - start) / 1e6)
                guard matched == itemCount / artists else {
                    throw LibraryBenchError("artist query matched \(matched) items")
                }
            }
            queryRounds.append(median(queryTimes))

            // The first grouping after the index changed reads every representative afresh.
            try big.markItemsChangedForBenchmark()
            var groupTimes: [Double] = []
            var albums: [MediaItemCollection] = []
            for _ in 0..<(quick ? 2 : 4) {
                let start = monotonicNanoseconds()
                albums = try MediaQuery.albums(in: big).collections
                groupTimes.append(Double(monotonicNanoseconds() - start) / 1e6)
            }
            guard albums.count == itemCount / 10 else {
                throw LibraryBenchError("grouping made \(albums.count) albums")
            }
            let last = albums[albums.count - 1]
            guard last.count == 10, last.items.map(\.albumTrackNumber) == Array(1...10),
                last.items.first == last.representativeItem
            else {
                throw LibraryBenchError(
                    "the last album holds tracks \(last.items.map(\.albumTrackNumber)) (count \(last.count))")
            }
            firstRounds.append(groupTimes[0])
            groupRounds.append(median(Array(groupTimes.dropFirst())))
            log(
                String(
                    format:
                        "round %d: artist query median %.3f ms; %d albums, first after the index changed %.1f ms, then %.1f ms",
                    round, queryRounds.last!, albums.count, firstRounds.last!, groupRounds.last!))
        }

        return [
            Figure(
                key: "scan_files_per_s", rounds: scanRates,
                unit: "files/s, cold scan of \(fileCount) files, median of \(rounds) rounds (target ≥ 2000)"),
            Figure(key: "rescan_s", rounds: rescans, unit: "s, unchanged rescan of \(fileCount) files (target < 1)"),
            Figure(
                key: "query_median_ms", rounds: queryRounds,
                unit:
                    "ms, artist predicate over \(itemCount) items, none decoded yet, median query of each round (target < 5)"
            ),
            Figure(
                key: "group_albums_ms", rounds: groupRounds,
                unit: "ms, albums of \(itemCount) items, warm (target < 50)"),
            Figure(
                key: "group_albums_first_ms", rounds: firstRounds,
                unit: "ms, the same, first run after the index changed (target < 150)"),
        ]
    }

    /// 100 artists, albums of 10 tracks; each file 0.05 s of a distinct tone.
    static func writeFiles(count: Int, root: URL) async throws {
        let genres = ["Rock", "Pop", "Jazz", "Folk"]
        for i in 0..<count {
            let album = i / 10
            let artist = album % 100
            let folder = root.appendingPathComponent("artist\(artist)/album\(album)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let writer = try AssetWriter(
                outputURL: folder.appendingPathComponent("\(i % 10 + 1).wav"), fileType: .wav, overwrite: true)
            writer.metadata = AudioTags(
                title: "Song \(i)", artist: "Artist \(artist)", albumTitle: "Album \(album)",
                genre: genres[artist % 4], trackNumber: i % 10 + 1, date: "2009")
            let input = AssetWriterInput(
                outputSettings: AudioFormat(sampleRate: 8_000, channelCount: 1, commonFormat: .int16))
            try writer.add(input)
            try writer.startWriting()
            let frequency = 100 + Double(i % 3000)
            let samples = (0..<400).map { Float(0.3 * sin(2 * Double.pi * frequency * Double($0) / 8_000)) }
            try input.append(try PCMBuffer(format: AudioFormat(sampleRate: 8_000, channelCount: 1), floats: samples))
            input.markAsFinished()
            try await writer.finishWriting()
        }
    }

    /// Runs async work from this synchronous benchmark and waits for it.
    static func blocking(_ work: @escaping @Sendable () async throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let outcome = LockedValueBox<(any Error)?>(nil)
        Task.detached {
            do { try await work() } catch { outcome.withLockedValue { $0 = error } }
            done.signal()
        }
        done.wait()
        if let error = outcome.withLockedValue({ $0 }) { throw error }
    }
}

struct LibraryBenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
