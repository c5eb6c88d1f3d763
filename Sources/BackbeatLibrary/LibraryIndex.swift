import BackbeatMedia
import BackbeatSupport
import Foundation
import GRDB

/// The SQLite index behind a ``MediaLibrary``: schema, opening (with rebuild of
/// a corrupt or foreign file) and row decoding. Every write happens in one
/// transaction, so readers see either the old library or the new one.
final class LibraryIndex: Sendable {
    static let format = "backbeat-media-library"
    static let schemaVersion = 2

    let writer: any DatabaseWriter
    /// Set when the file at the index location was unusable and was set aside.
    let warning: String?

    init(location: MediaLibrary.IndexLocation, busyTimeout: Double = defaultBusyTimeout) throws {
        switch location {
        case .inMemory:
            let queue = try Self.wrap("open", nil) { try DatabaseQueue() }
            try Self.wrap("create schema", nil) { try Self.createSchema(queue) }
            writer = queue
            warning = nil
        case .file(let url):
            (writer, warning) = try Self.openFile(url, busyTimeout: busyTimeout)
        case .defaultLocation:
            (writer, warning) = try Self.openFile(MediaLibrary.defaultIndexURL, busyTimeout: busyTimeout)
        }
    }

    /// How long a write waits for another connection's transaction (a second
    /// game instance, `backbeat library scan`) before failing with `.indexBusy`.
    static let defaultBusyTimeout: Double = 5

    static func configuration(busyTimeout: Double) -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        return configuration
    }

    /// Opens the index at `url`. Only a file SQLite calls corrupt or not a
    /// database at all is moved aside (with its `-wal` and `-shm`, which may
    /// hold committed data) and rebuilt. Every other failure (busy, read-only,
    /// full, I/O, a newer schema, another program's database) is a typed error
    /// and leaves the files as they are.
    private static func openFile(_ url: URL, busyTimeout: Double) throws -> (any DatabaseWriter, String?) {
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw BackbeatError(.indexFailed, operation: "create directory", url: directory, reason: "\(error)")
        }
        let configuration = configuration(busyTimeout: busyTimeout)
        // SQLite deletes the -wal beside a file that is not a database as it
        // opens it: look at the header first, so the WAL goes aside too.
        var damage = notADatabase(url)
        if damage == nil {
            do {
                let pool = try DatabasePool(path: url.path, configuration: configuration)
                damage = try validateOrCreate(pool)
                if damage == nil { return (pool, nil) }
            } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
                damage = error.message ?? "\(error.resultCode)"
            } catch {
                throw typed(error, operation: "open", url: url)
            }
        }
        let reason = damage ?? "damaged"
        // Damaged: keep it (and its WAL and shared memory) aside, start over.
        var aside = url.appendingPathExtension("broken")
        var n = 1
        while FileManager.default.fileExists(atPath: aside.path) {
            n += 1
            aside = url.appendingPathExtension("broken\(n)")
        }
        do {
            try FileManager.default.moveItem(at: url, to: aside)
            for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
                try FileManager.default.moveItem(atPath: url.path + suffix, toPath: aside.path + suffix)
            }
            let pool = try DatabasePool(path: url.path, configuration: configuration)
            try createSchema(pool)
            return (pool, "\(url.path): index was damaged (\(reason)); moved to \(aside.lastPathComponent) and rebuilt")
        } catch {
            throw typed(error, operation: "rebuild", url: url)
        }
    }

    /// Why the file at `url` is not an SQLite database by its header, or nil
    /// when it is one (or empty, or absent: SQLite creates those).
    private static func notADatabase(_ url: URL) -> String? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if header.isEmpty { return nil }
        return header == Data("SQLite format 3\u{0}".utf8) ? nil : "file is not a database"
    }

    /// Creates the schema in an empty database; nil for a good Backbeat index;
    /// the problem when SQLite's quick check finds damage. Throws a typed error
    /// for a newer version or another program's database.
    private static func validateOrCreate(_ writer: any DatabaseWriter) throws -> String? {
        // Validation only reads, so an index opens while another program writes to it.
        let isEmpty = try writer.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'").isEmpty
        }
        if isEmpty {
            try writer.write { db in
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                if tables.isEmpty { try createTables(db) }
            }
        }
        let problem = try writer.read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            guard tables.contains("meta"),
                try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'format'") == format
            else {
                throw BackbeatError(
                    .indexForeign, operation: "open",
                    reason: "the file is another program's SQLite database; it was left as it is")
            }
            let version = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'version'")
            guard version == String(schemaVersion) || version == "1" else {
                throw BackbeatError(
                    version.flatMap(Int.init).map { $0 > schemaVersion } == true ? .indexNewerVersion : .indexForeign,
                    operation: "open",
                    reason:
                        "schema version \(version ?? "none"), this Backbeat reads \(schemaVersion); it was left as it is"
                )
            }
            let check = try String.fetchOne(db, sql: "PRAGMA quick_check") ?? "no answer"
            return check == "ok" ? nil : check
        }
        if problem == nil { try migrate(writer) }
        return problem
    }

    /// Brings an index of an earlier schema version up to this one, in one transaction.
    private static func migrate(_ writer: any DatabaseWriter) throws {
        guard try writer.read({ try String.fetchOne($0, sql: "SELECT value FROM meta WHERE key = 'version'") }) == "1"
        else { return }
        try writer.write { db in
            // Version 2: items of a folder that cannot be reached stay, marked unavailable.
            guard try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'version'") == "1" else { return }
            try db.execute(sql: "ALTER TABLE items ADD COLUMN available INTEGER NOT NULL DEFAULT 1")
            try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'version'", arguments: [String(schemaVersion)])
        }
    }

    /// A ``BackbeatError`` whose code says what went wrong with the index.
    static func typed(_ error: any Error, operation: String, url: URL?) -> BackbeatError {
        if let error = error as? BackbeatError {
            return url == nil || error.url != nil
                ? error : BackbeatError(error.code, operation: error.operation, url: url, reason: error.reason)
        }
        guard let error = error as? DatabaseError else {
            return BackbeatError(.indexFailed, operation: operation, url: url, reason: "\(error)")
        }
        let reason = error.message ?? "\(error.resultCode)"
        let code: BackbeatError.Code =
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED: .indexBusy
            case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN: .indexReadOnly
            case .SQLITE_FULL: .indexFull
            default: .indexFailed
            }
        return BackbeatError(code, operation: operation, url: url, reason: reason)
    }

    private static func createSchema(_ writer: any DatabaseWriter) throws {
        try writer.write { db in try createTables(db) }
    }

    private static func createTables(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE items (
                    id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, size INTEGER NOT NULL, mtime INTEGER NOT NULL,
                    media_type INTEGER NOT NULL, title TEXT NOT NULL, artist TEXT, album TEXT, album_artist TEXT,
                    genre TEXT, composer TEXT, track INTEGER NOT NULL, disc INTEGER NOT NULL,
                    duration_value INTEGER NOT NULL, duration_timescale INTEGER NOT NULL, release_date REAL,
                    compilation INTEGER NOT NULL, artwork_kind INTEGER NOT NULL, artwork_path TEXT,
                    artwork_width INTEGER NOT NULL, artwork_height INTEGER NOT NULL,
                    title_key TEXT NOT NULL, artist_key TEXT NOT NULL, album_key TEXT NOT NULL,
                    album_artist_key TEXT NOT NULL, genre_key TEXT NOT NULL, composer_key TEXT NOT NULL,
                    title_sort TEXT NOT NULL, artist_sort TEXT NOT NULL, album_sort TEXT NOT NULL,
                    album_artist_sort TEXT NOT NULL, genre_sort TEXT NOT NULL, composer_sort TEXT NOT NULL,
                    album_group INTEGER NOT NULL, available INTEGER NOT NULL DEFAULT 1);
                CREATE INDEX items_artist ON items(artist_key);
                CREATE INDEX items_album ON items(album_key);
                CREATE INDEX items_album_artist ON items(album_artist_key);
                CREATE INDEX items_genre ON items(genre_key);
                CREATE INDEX items_composer ON items(composer_key);
                CREATE INDEX items_title_order ON items(title_sort, artist_sort, album_sort, id, media_type);
                CREATE INDEX items_album_order ON items(album_sort, album_group, disc, track, title_sort, id, media_type, compilation);
                CREATE TABLE generation (value INTEGER NOT NULL);
                INSERT INTO generation (value) VALUES (0);
                CREATE TABLE play_stats (id INTEGER PRIMARY KEY, play_count INTEGER NOT NULL DEFAULT 0,
                    skip_count INTEGER NOT NULL DEFAULT 0, last_played REAL);
                CREATE TABLE analysis (id INTEGER PRIMARY KEY, integrated_lufs REAL NOT NULL, true_peak_dbtp REAL NOT NULL);
                CREATE TABLE playlists (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
                    name_sort TEXT NOT NULL);
                CREATE TABLE playlist_entries (playlist_id INTEGER NOT NULL, position INTEGER NOT NULL,
                    item_id INTEGER NOT NULL, PRIMARY KEY (playlist_id, position));
                """)
        try db.execute(
            sql: "INSERT INTO meta (key, value) VALUES ('format', ?), ('version', ?)",
            arguments: [format, String(schemaVersion)])
    }

    /// Runs a read, turning database errors into ``BackbeatError``.
    func read<T>(_ operation: String, _ body: (Database) throws -> T) throws -> T {
        try Self.wrap(operation, nil) { try writer.read(body) }
    }

    /// Runs a write transaction, turning database errors into ``BackbeatError``.
    /// Unless told otherwise, the write counts as a change to items (see ``ItemCache``).
    func write<T>(_ operation: String, changesItems: Bool = true, _ body: (Database) throws -> T) throws -> T {
        try Self.wrap(operation, nil) {
            try writer.write { db in
                let result = try body(db)
                if changesItems { try Self.bumpGeneration(db) }
                return result
            }
        }
    }

    /// Marks the items as changed, so cached items are not reused.
    static func bumpGeneration(_ db: Database) throws {
        try db.execute(sql: "UPDATE generation SET value = value + 1")
    }

    static func generation(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT value FROM generation") ?? 0
    }

    let cache = ItemCache()

    static func wrap<T>(_ operation: String, _ url: URL?, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as BackbeatError { throw error } catch {
            throw typed(error, operation: operation, url: url)
        }
    }

    // MARK: Items

    /// The columns ``item(from:)`` reads, in order; `i` is `items`.
    static let itemColumns = """
        i.id, i.media_type, i.title, i.artist, i.album, i.album_artist, i.genre, i.composer, i.track, i.disc,
        i.duration_value, i.duration_timescale, i.release_date, i.compilation, i.path, i.artwork_kind, i.artwork_path,
        i.artwork_width, i.artwork_height, s.play_count, s.skip_count, s.last_played, a.integrated_lufs, a.true_peak_dbtp,
        i.available
        """
    static let itemJoins = "LEFT JOIN play_stats s ON s.id = i.id LEFT JOIN analysis a ON a.id = i.id"

    static func item(from row: Row) throws -> MediaItem {
        let timescale = try row.value(at: 11, as: Int32.self)
        let artworkSource: MediaItemArtwork.Source? =
            switch try row.value(at: 15, as: Int.self) {
            case 1: .embedded(try row.value(at: 14))
            case 2: .imageFile(try row.value(at: 16, as: String?.self) ?? "")
            default: nil
            }
        let lufs = try row.value(at: 22, as: Double?.self)
        let peak = try row.value(at: 23, as: Double?.self)
        let releaseDate = try row.value(at: 12, as: Double?.self)
        let lastPlayed = try row.value(at: 21, as: Double?.self)
        return MediaItem(
            persistentID: UInt64(bitPattern: try row.value(at: 0)),
            mediaType: MediaType(rawValue: try row.value(at: 1)),
            title: try row.value(at: 2), artist: try row.value(at: 3), albumTitle: try row.value(at: 4),
            albumArtistTag: try row.value(at: 5), genre: try row.value(at: 6), composer: try row.value(at: 7),
            albumTrackNumber: try row.value(at: 8), discNumber: try row.value(at: 9),
            playbackDuration: timescale > 0 ? MediaTime(value: try row.value(at: 10), timescale: timescale) : .zero,
            releaseDate: releaseDate.map { Date(timeIntervalSince1970: $0) }, isCompilation: try row.value(at: 13),
            path: try row.value(at: 14),
            playCount: try row.value(at: 19, as: Int?.self) ?? 0, skipCount: try row.value(at: 20, as: Int?.self) ?? 0,
            lastPlayedDate: lastPlayed.map { Date(timeIntervalSince1970: $0) },
            loudness: lufs.map { Loudness(integratedLUFS: $0, truePeakDBTP: peak ?? 0) },
            artworkSource: artworkSource, artworkWidth: try row.value(at: 17), artworkHeight: try row.value(at: 18),
            isAvailable: try row.value(at: 24))
    }

    static let columnCount = 24

    static func fetchItems(
        _ db: Database, joining join: String = "", where clause: String = "",
        arguments: StatementArguments = [], orderBy: String
    ) throws -> [MediaItem] {
        let sql =
            "SELECT \(itemColumns) FROM items i \(join) \(itemJoins) \(clause.isEmpty ? "" : "WHERE \(clause)") ORDER BY \(orderBy)"
        var items: [MediaItem] = []
        let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try cursor.next() { items.append(try item(from: row)) }
        return items
    }

    // MARK: Meta

    static func metaValue(_ db: Database, _ key: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key])
    }

    static func setMeta(_ db: Database, _ key: String, _ value: String) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [key, value])
    }
}
