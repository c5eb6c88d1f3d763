import BackbeatSupport
import Foundation
import GRDB

/// A music library: folders of audio files scanned into a SQLite index that
/// answers ``MediaQuery``s. Like the iPod library, it has items, albums,
/// artists, genres, composers and playlists, and it tells you when it changes.
///
/// ```swift
/// let library = try MediaLibrary(roots: [musicFolder])
/// let report = try library.scan()
/// var query = MediaQuery.songs(in: library)
/// try query.addFilterPredicate(MediaPropertyPredicate(value: "Beyonce", property: .artist))
/// for item in try query.items { print(item.title) }
/// ```
///
/// The files are only ever read. Any number of threads may query while a scan runs.
public final class MediaLibrary: Sendable {
    /// Where the index lives.
    public enum IndexLocation: Sendable, Equatable {
        /// ``MediaLibrary/defaultIndexURL``, under the XDG data directory.
        case defaultLocation
        /// A file of your choice.
        case file(URL)
        /// In memory, gone when the library is released (for tests).
        case inMemory
    }

    /// The folders scanned, as standardized file URLs.
    public let roots: [URL]
    /// A warning from opening the index, such as a corrupt file that was set aside and rebuilt.
    public let indexWarning: String?

    let index: LibraryIndex
    let scanner: LibraryScanner
    private let scanLock = LockedValueBox<Void>(())
    private let state: LockedValueBox<State>
    /// Observers and streams of changes (each stream keeps the newest 64 unread).
    private let broadcast = EventBroadcast<LibraryChange>(bufferLimit: 64)
    /// Where the music player's plays and skips are written, in order, off the
    /// thread that reported them (the engine's), so a scan's transaction never
    /// holds up the audio.
    let statisticsQueue = DispatchQueue(label: "backbeat.library.statistics")
    let statisticsFailures = LockedValueBox<[BackbeatError]>([])

    private struct State {
        var lastModifiedDate: Date
        var generatingNotifications = 0
    }

    /// `$XDG_DATA_HOME/backbeat/library.sqlite`, defaulting to `~/.local/share/backbeat/library.sqlite`.
    public static var defaultIndexURL: URL {
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(
                ".local/share", isDirectory: true)
        }
        return base.appendingPathComponent("backbeat/library.sqlite")
    }

    /// Opens (or creates) the index for a library of `roots`. Nothing is scanned until ``scan()``.
    ///
    /// A file that SQLite finds damaged or not a database at all is moved aside
    /// (`.broken`, with its `-wal` and `-shm`) and rebuilt; ``indexWarning``
    /// says so. Nothing else is ever moved: writes wait up to 5 s for another
    /// program's transaction.
    ///
    /// - Parameters:
    ///   - roots: The folders whose audio files make the library.
    ///   - index: Where the SQLite index lives.
    /// - Throws: `.indexBusy`, `.indexReadOnly`, `.indexFull`, `.indexNewerVersion`
    ///   or `.indexForeign` (the files are left as they are), or `.indexFailed`
    ///   when no index can be opened or created.
    public convenience init(roots: [URL], index: IndexLocation = .defaultLocation) throws {
        try self.init(roots: roots, index: index, source: LibraryCodecs.source)
    }

    init(
        roots: [URL], index location: IndexLocation, source: any MediaMetadataSource,
        busyTimeout: Double = LibraryIndex.defaultBusyTimeout
    ) throws {
        self.roots = roots.map { $0.standardizedFileURL }
        index = try LibraryIndex(location: location, busyTimeout: busyTimeout)
        indexWarning = index.warning
        scanner = LibraryScanner(roots: self.roots.map { ($0.path as NSString).standardizingPath }, source: source)
        let stored = try index.read("open") { db in try LibraryIndex.metaValue(db, "last_modified") }
        state = LockedValueBox(
            State(lastModifiedDate: stored.flatMap(Double.init).map { Date(timeIntervalSince1970: $0) } ?? .distantPast)
        )
    }

    /// Brings the index up to date with the roots: new files are added,
    /// changed ones (by size and modification time) re-read, missing ones
    /// removed; playlists are re-read. One scan runs at a time; queries go on
    /// meanwhile and see the old library until the scan commits.
    ///
    /// - Returns: counts of added, changed, removed and unchanged files, and every skipped file with its reason.
    /// - Throws: ``BackbeatError/Code/indexFailed`` if the index cannot be written (it is left as it was).
    @discardableResult
    public func scan() throws -> ScanReport {
        try scanLock.withLockedValue { _ in
            let now = Date()
            let report = try scanner.scan(into: index, now: now)
            if report.hasChanges {
                let change = LibraryChange(
                    added: report.added, changed: report.changed, removed: report.removed,
                    playlistsChanged: report.playlistsChanged, lastModifiedDate: now)
                let generating = state.withLockedValue { state -> Bool in
                    state.lastModifiedDate = now
                    return state.generatingNotifications > 0
                }
                if generating { broadcast.send(change) }
            }
            return report
        }
    }

    /// When the library last changed (`distantPast` before the first scan that found anything).
    public var lastModifiedDate: Date { state.withLockedValue { $0.lastModifiedDate } }

    /// Changes after each scan that found any, while notifications are being
    /// generated (see ``beginGeneratingLibraryChangeNotifications()``). Each
    /// call returns a new stream, keeping the newest 64 changes its consumer
    /// has not read; it ends when the library is released.
    public func events() -> AsyncStream<LibraryChange> {
        broadcast.events()
    }

    /// Calls `handler` with each change (see ``events()``), on the thread that
    /// scanned, until the returned token is cancelled.
    ///
    /// - Parameter handler: Called with each ``LibraryChange``.
    /// - Returns: A token; cancel it (or let it go) to stop the calls.
    @discardableResult
    public func observe(_ handler: @escaping @Sendable (LibraryChange) -> Void) -> ObservationToken {
        broadcast.observe(handler)
    }

    /// Starts delivering ``changes``. Calls nest: each needs a matching ``endGeneratingLibraryChangeNotifications()``.
    public func beginGeneratingLibraryChangeNotifications() {
        state.withLockedValue { $0.generatingNotifications += 1 }
    }

    /// Balances one ``beginGeneratingLibraryChangeNotifications()``.
    public func endGeneratingLibraryChangeNotifications() {
        state.withLockedValue { $0.generatingNotifications = max(0, $0.generatingNotifications - 1) }
    }

    deinit {
        broadcast.finish()
    }

    /// The item with this persistent ID.
    ///
    /// - Parameter persistentID: The ID ``MediaItem/persistentID`` gave, stable across rescans.
    /// - Returns: The item, read from the index now.
    /// - Throws: ``BackbeatError/Code/unknownPersistentID`` when the library has no such item.
    public func item(persistentID: UInt64) throws -> MediaItem {
        let items = try index.read("find item") { db in
            try LibraryIndex.fetchItems(
                db, where: "i.id = ?", arguments: [Int64(bitPattern: persistentID)], orderBy: "i.id")
        }
        guard let item = items.first else {
            throw BackbeatError(
                .unknownPersistentID, operation: "find item", reason: String(format: "item %016llx", persistentID))
        }
        return item
    }

    /// The number of items in the index.
    public func itemCount() throws -> Int {
        try index.read("count items") { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM items") ?? 0 }
    }
}
