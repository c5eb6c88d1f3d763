import BackbeatSupport
import Foundation
import GRDB

extension LibraryScanner {
    /// Scans and applies the result to `index` in one transaction.
    func scan(into index: LibraryIndex, now: Date) throws -> ScanReport {
        var report = ScanReport()
        let walked = walk()
        report.skipped = walked.skipped

        struct Known {
            let id: Int64
            let size: Int64
            let mtime: Int64
            let available: Bool
        }
        let known: [String: Known] = try index.read("load index") { db in
            var known: [String: Known] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT path, id, size, mtime, available FROM items")
            while let row = try rows.next() {
                known[try row.value(at: 0)] = Known(
                    id: try row.value(at: 1), size: try row.value(at: 2), mtime: try row.value(at: 3),
                    available: try row.value(at: 4))
            }
            return known
        }
        let unreachable = walked.unreachable.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        func isUnreachable(_ path: String) -> Bool { unreachable.contains { path.hasPrefix($0) } }

        var toRead: [FoundFile] = []
        var seen = Set<String>()
        var restored: [String] = []
        for file in walked.audio {
            seen.insert(file.path)
            if let old = known[file.path], old.size == file.size, old.mtime == file.mtime {
                report.unchanged += 1
                if !old.available { restored.append(file.path) }
            } else {
                toRead.append(file)
            }
        }
        let missing = known.keys.filter { !seen.contains($0) }.sorted()
        let gone = missing.filter { !isUnreachable($0) }
        let newlyUnavailable = missing.filter { isUnreachable($0) && known[$0]?.available == true }
        let results = extractAll(toRead)
        let parsedPlaylists = walked.playlists.map { file in
            (file, Result { try PlaylistReader.read(URL(fileURLWithPath: file.path)) })
        }

        report = try index.write("update index", changesItems: false) { db in
            var report = report
            // Old rows of gone and changed files go first, so a moved file can take its ID back.
            for path in gone {
                try db.execute(sql: "DELETE FROM items WHERE path = ?", arguments: [path])
                report.removed += 1
            }
            for path in newlyUnavailable {
                try db.execute(sql: "UPDATE items SET available = 0 WHERE path = ?", arguments: [path])
                report.unavailable += 1
            }
            for path in restored {
                try db.execute(sql: "UPDATE items SET available = 1 WHERE path = ?", arguments: [path])
                report.restored += 1
            }
            var previousID: [String: Int64] = [:]
            for file in toRead {
                guard let old = known[file.path] else { continue }
                previousID[file.path] = old.id
                try db.execute(sql: "DELETE FROM items WHERE path = ?", arguments: [file.path])
            }
            let insert = try db.makeStatement(sql: LibraryScanner.insertItemSQL)
            let holder = try db.makeStatement(sql: "SELECT path FROM items WHERE id = ?")
            for result in results {
                let extracted: Extracted
                switch result {
                case .failure(let error):
                    let url = error.url ?? URL(fileURLWithPath: "?")
                    report.skipped.append(.init(url: url, reason: error.description.dropPrefix(url.path + ": ")))
                    if previousID[url.path] != nil { report.removed += 1 }
                    continue
                case .success(let value):
                    extracted = value
                }
                let file = extracted.file
                let id = Int64(bitPattern: extracted.id)
                if let other = try String.fetchOne(holder, arguments: [id]) {
                    report.skipped.append(
                        .init(
                            url: URL(fileURLWithPath: file.path), reason: "duplicate of \(other) (same audio content)"))
                    if previousID[file.path] != nil { report.removed += 1 }
                    continue
                }
                try insert.execute(arguments: Self.rowArguments(extracted))
                for warning in extracted.metadata.warnings {
                    report.warnings.append(.init(url: URL(fileURLWithPath: file.path), reason: warning))
                }
                if let old = previousID[file.path] {
                    report.changed += 1
                    if old != id {
                        try db.execute(
                            sql: """
                                INSERT OR IGNORE INTO play_stats (id, play_count, skip_count, last_played)
                                SELECT ?, play_count, skip_count, last_played FROM play_stats WHERE id = ?
                                """, arguments: [id, old])
                    }
                } else {
                    report.added += 1
                }
            }
            try applyPlaylists(parsedPlaylists, db: db, report: &report, keeping: isUnreachable)
            if report.hasChanges {
                try LibraryIndex.bumpGeneration(db)
                try LibraryIndex.setMeta(db, "last_modified", String(now.timeIntervalSince1970))
            }
            return report
        }
        return report
    }

    static func rowArguments(_ e: Extracted) -> StatementArguments {
        let m = e.metadata
        let title = m.title ?? ((e.file.path as NSString).lastPathComponent as NSString).deletingPathExtension
        let albumArtist = m.albumArtist ?? m.artist
        let mediaType = MediaType.derived(fromGenre: m.genre)
        let artworkKind: Int
        let artworkPath: String?
        let artworkSize: MediaItemArtwork.Size?
        if let size = e.embeddedArtworkSize {
            (artworkKind, artworkPath, artworkSize) = (1, nil, size)
        } else if let cover = e.file.cover {
            (artworkKind, artworkPath, artworkSize) = (2, cover.path, cover.size)
        } else {
            (artworkKind, artworkPath, artworkSize) = (0, nil, nil)
        }
        let fold = { (s: String?) in s.map(TextFolding.fold) ?? "" }
        let albumKey = fold(m.albumTitle)
        var groupHasher = Hasher64()
        groupHasher.combine(albumKey + "\u{1F}" + (m.isCompilation ? "" : fold(albumArtist)))
        let albumGroup = Int64(bitPattern: groupHasher.value)
        let values: [(any DatabaseValueConvertible)?] = [
            Int64(bitPattern: e.id), e.file.path, e.file.size, e.file.mtime, mediaType.rawValue, title, m.artist,
            m.albumTitle, m.albumArtist, m.genre, m.composer, m.trackNumber, m.discNumber,
            m.duration.value, Int(m.duration.timescale),
            m.releaseDate?.timeIntervalSince1970, m.isCompilation, artworkKind, artworkPath,
            artworkSize?.width ?? 0, artworkSize?.height ?? 0,
            TextFolding.fold(title), fold(m.artist), albumKey, fold(albumArtist), fold(m.genre), fold(m.composer),
            TextFolding.sortKey(title), TextFolding.sortKey(m.artist), TextFolding.sortKey(m.albumTitle),
            TextFolding.sortKey(albumArtist), TextFolding.sortKey(m.genre), TextFolding.sortKey(m.composer), albumGroup,
        ]
        return StatementArguments(values)
    }

    // MARK: Playlists

    private struct PlaylistRow: Equatable {
        let id: Int64
        let path: String
        let name: String
        let items: [Int64]
    }

    private func applyPlaylists(
        _ parsed: [(FoundFile, Result<PlaylistReader.Parsed, any Error>)], db: Database,
        report: inout ScanReport, keeping isUnreachable: (String) -> Bool
    ) throws {
        let itemAtPath = try db.makeStatement(sql: "SELECT id FROM items WHERE path = ?")
        var rows: [PlaylistRow] = []
        for (file, result) in parsed {
            let url = URL(fileURLWithPath: file.path)
            let playlist: PlaylistReader.Parsed
            switch result {
            case .failure(let error):
                let reason = (error as? BackbeatError).map { $0.description.dropPrefix(url.path + ": ") } ?? "\(error)"
                report.playlistProblems.append(.init(url: url, reason: reason))
                continue
            case .success(let value):
                playlist = value
            }
            if playlist.truncated {
                report.playlistProblems.append(
                    .init(url: url, reason: "more than \(PlaylistReader.maximumEntries) entries; the rest are ignored"))
            }
            let directory = (file.path as NSString).deletingLastPathComponent
            var items: [Int64] = []
            for entry in playlist.entries {
                switch resolve(entry, relativeTo: directory) {
                case .failure(let problem):
                    report.playlistProblems.append(
                        .init(url: url, reason: "entry \"\(entry.prefix(200))\": \(problem.reason)"))
                case .success(let path):
                    if let id = try Int64.fetchOne(itemAtPath, arguments: [path]) {
                        items.append(id)
                    } else {
                        let reason =
                            FileManager.default.fileExists(atPath: path)
                            ? "not in the library (unsupported or skipped)" : "missing file"
                        report.playlistProblems.append(
                            .init(url: url, reason: "entry \"\(entry.prefix(200))\": \(reason)"))
                    }
                }
            }
            let name =
                playlist.name.flatMap { $0.isEmpty ? nil : String($0.prefix(ScannedMetadata.maximumValueBytes)) }
                ?? ((file.path as NSString).lastPathComponent as NSString).deletingPathExtension
            rows.append(PlaylistRow(id: playlistID(path: file.path), path: file.path, name: name, items: items))
        }
        report.playlists = rows.count

        var previous: [PlaylistRow] = []
        let stored = try Row.fetchAll(db, sql: "SELECT id, path, name FROM playlists ORDER BY path")
        for row in stored {
            let items = try Int64.fetchAll(
                db, sql: "SELECT item_id FROM playlist_entries WHERE playlist_id = ? ORDER BY position",
                arguments: [try row.value(at: 0, as: Int64.self)])
            previous.append(
                PlaylistRow(
                    id: try row.value(at: 0), path: try row.value(at: 1), name: try row.value(at: 2), items: items))
        }
        previous.sort { $0.path < $1.path }
        // Playlists in a folder that cannot be reached now stay as they were.
        let found = Set(rows.map(\.path))
        rows += previous.filter { isUnreachable($0.path) && !found.contains($0.path) }
        rows.sort { $0.path < $1.path }
        guard previous != rows else { return }
        report.playlistsChanged = true
        try db.execute(sql: "DELETE FROM playlists; DELETE FROM playlist_entries")
        for row in rows {
            try db.execute(
                sql: "INSERT OR IGNORE INTO playlists (id, path, name, name_sort) VALUES (?, ?, ?, ?)",
                arguments: [row.id, row.path, row.name, TextFolding.sortKey(row.name)])
            for (position, item) in row.items.enumerated() {
                try db.execute(
                    sql: "INSERT INTO playlist_entries (playlist_id, position, item_id) VALUES (?, ?, ?)",
                    arguments: [row.id, position, item])
            }
        }
    }

    /// A playlist's ID: a hash of its path relative to its root, stable across scans and index rebuilds.
    func playlistID(path: String) -> Int64 {
        var hasher = Hasher64()
        let root = roots.first { path.hasPrefix($0 + "/") } ?? ""
        hasher.combine(String(path.dropFirst(root.count)))
        return Int64(bitPattern: hasher.value)
    }

    struct EntryProblem: Error { let reason: String }

    /// The absolute, standardized path of a playlist entry, if it is a local file inside the roots.
    func resolve(_ entry: String, relativeTo directory: String) -> Result<String, EntryProblem> {
        var path: String
        if let schemeEnd = entry.range(of: "://"), entry[..<schemeEnd.lowerBound].allSatisfy(\.isLetter) {
            guard let url = URL(string: entry), url.isFileURL else {
                return .failure(.init(reason: "not a local file"))
            }
            path = url.path
        } else if entry.hasPrefix("/") {
            path = entry
        } else {
            path = directory + "/" + entry.replacingOccurrences(of: "\\", with: "/")
        }
        path = (path as NSString).standardizingPath
        guard roots.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) else {
            return .failure(.init(reason: "outside the library roots"))
        }
        return .success(path)
    }
}

extension String {
    func dropPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}

extension LibraryScanner {
    /// The one statement that writes an item row; `rowArguments` fills it.
    static let insertItemSQL = """
        INSERT INTO items (id, path, size, mtime, media_type, title, artist, album, album_artist, genre,
            composer, track, disc, duration_value, duration_timescale, release_date, compilation, artwork_kind,
            artwork_path, artwork_width, artwork_height, title_key, artist_key, album_key, album_artist_key,
            genre_key, composer_key, title_sort, artist_sort, album_sort, album_artist_sort, genre_sort,
            composer_sort, album_group)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
}
