#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one door to inotify: watches folders and says which names in them
/// were written or replaced, without polling the files and without blocking.
///
/// A followed file is watched through its folder, by name, so that an editor
/// that saves by writing a temporary file and renaming it over the original
/// is followed as one that writes in place. Only finished changes count: a
/// file closed after writing (`IN_CLOSE_WRITE`), a name renamed into the
/// folder (`IN_MOVED_TO`), and a name created that is a symbolic link
/// (`IN_CREATE`; a new regular file counts when it is closed, not while it
/// is half written). A folder removed drops its watch.
///
/// The descriptor is non-blocking: ``readChanges()`` returns at once with
/// what the kernel has queued, a bounded amount per call. Not thread-safe:
/// its owner serialises calls (the engine reads it under its lock).
package final class FileWatcher {
    /// One change: a name in a watched folder, or the kernel's queue
    /// overflowing (``overflowed``), after which anything may have changed.
    package struct Change: Sendable, Equatable {
        /// The watched folder, as given to ``watch(directory:)``; empty on overflow.
        package var directory: String
        /// The entry's name in it; empty on overflow.
        package var name: String
        /// The kernel dropped changes: check every followed file.
        package var overflowed: Bool
    }

    /// Bytes read per call at most: a change is at most 16 + 256 bytes, so
    /// this holds at least 240 of them; more wait for the next call.
    package static let readLimit = 64 * 1024

    private var descriptor: Int32
    private var directories: [Int32: String] = [:]
    private var watches: [String: Int32] = [:]
    private var buffer = [UInt8](repeating: 0, count: FileWatcher.readLimit)

    /// Whether changes are queued, without reading them (one `poll`).
    package var hasChanges: Bool {
        guard descriptor >= 0 else { return false }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0 && entry.revents & Int16(POLLIN) != 0
    }

    /// Opens an inotify instance.
    ///
    /// - Throws: ``BackbeatError/Code/fileWatchUnavailable`` with the C reason
    ///   (too many instances for this user, say).
    package init() throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else {
            throw BackbeatError(
                .fileWatchUnavailable, operation: "inotify_init1", reason: String(cString: strerror(errno)))
        }
    }

    deinit { close() }

    /// Closes the descriptor; every watch ends. Idempotent.
    package func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
        directories = [:]
        watches = [:]
    }

    /// The folders watched, by path.
    package var watchedDirectories: [String] { Array(watches.keys) }

    /// Starts watching `directory` (nothing happens if it is watched already).
    ///
    /// - Parameter directory: A folder's path.
    /// - Throws: ``BackbeatError/Code/fileWatchUnavailable`` naming the folder
    ///   and the C reason (no such folder, the user's watch limit reached).
    package func watch(directory: String) throws {
        guard watches[directory] == nil else { return }
        guard descriptor >= 0 else {
            throw BackbeatError(.fileWatchUnavailable, operation: "watch \(directory)", reason: "the watcher is closed")
        }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_ONLYDIR)
        let wd = inotify_add_watch(descriptor, directory, mask)
        guard wd >= 0 else {
            throw BackbeatError(
                .fileWatchUnavailable, operation: "watch \(directory)", reason: String(cString: strerror(errno)))
        }
        directories[wd] = directory
        watches[directory] = wd
    }

    /// Stops watching `directory` (nothing happens if it is not watched).
    ///
    /// - Parameter directory: A folder given to ``watch(directory:)``.
    package func unwatch(directory: String) {
        guard let wd = watches.removeValue(forKey: directory) else { return }
        directories[wd] = nil
        if descriptor >= 0 { _ = inotify_rm_watch(descriptor, wd) }
    }

    /// The changes queued since the last call, without waiting: at most
    /// ``readLimit`` bytes of them (the rest stay queued for the next call).
    ///
    /// - Returns: The changes, in the kernel's order; a name changed twice is listed twice.
    package func readChanges() -> [Change] {
        guard descriptor >= 0 else { return [] }
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return [] }
        return Self.parse(buffer[..<count], directories: &directories, watches: &watches)
    }

    /// Reads inotify records from `bytes`, every length checked against what
    /// is there: a record cut short ends the batch.
    ///
    /// - Parameters:
    ///   - bytes: What one `read` returned.
    ///   - directories: Watched folders by descriptor; a folder the kernel
    ///     stopped watching (`IN_IGNORED`) is removed.
    ///   - watches: The same map the other way round, kept in step.
    /// - Returns: The changes that count (see the type's summary).
    package static func parse(
        _ bytes: ArraySlice<UInt8>, directories: inout [Int32: String], watches: inout [String: Int32]
    ) -> [Change] {
        var changes: [Change] = []
        var index = bytes.startIndex
        let header = 16
        func word(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        while bytes.endIndex - index >= header {
            let wd = Int32(bitPattern: word(index))
            let mask = word(index + 4)
            let length = Int(word(index + 12))
            guard length <= bytes.endIndex - index - header else { break }
            let nameBytes = bytes[(index + header)..<(index + header + length)]
            index += header + length
            let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
            if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                changes.append(Change(directory: "", name: "", overflowed: true))
                continue
            }
            guard let directory = directories[wd] else { continue }
            if mask & UInt32(IN_IGNORED) != 0 {
                directories[wd] = nil
                watches[directory] = nil
                continue
            }
            guard !name.isEmpty else { continue }
            if mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO) != 0 {
                changes.append(Change(directory: directory, name: name, overflowed: false))
            } else if mask & UInt32(IN_CREATE) != 0, Self.isSymbolicLink(directory + "/" + name) {
                changes.append(Change(directory: directory, name: name, overflowed: false))
            }
        }
        return changes
    }

    private static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFLNK
    }
}

extension BackbeatError.Code {
    /// The system would not watch a file for changes (inotify unavailable, its limits reached).
    public static let fileWatchUnavailable = Self("file watch unavailable")
}
