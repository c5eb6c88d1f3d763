import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The fingerprints (path, size, content hash) of the music files a capture
/// names, kept per file while its size and modification time stay the same,
/// so a song is read through once, and before the engine lock is taken
/// (``prefetch(_:engine:)``), not under it while the game plays.
enum MusicAssetFingerprints {
    private struct Entry {
        var size: Int64
        var modified: timespec
        var fingerprint: FileFingerprint?
    }
    private static let cache = LockedValueBox<[String: Entry]>([:])

    /// Fingerprints the files of `assets` that are not known yet, when
    /// `engine` is capturing; nothing otherwise. Call it outside the engine lock.
    ///
    /// - Parameters:
    ///   - assets: The assets a call is about to hand a player.
    ///   - engine: The engine the player plays on.
    static func prefetch(_ assets: [AudioAsset], engine: AudioEngine?) {
        guard let engine, engine.withLock(waking: false, { engine.captureRecorder != nil }) else { return }
        for asset in assets where asset.readsURL { _ = fingerprint(of: asset.url) }
        for asset in assets {
            if let entry = asset.archiveEntry { _ = fingerprint(of: entry.archive) }
        }
    }

    /// The file's fingerprint (read through now unless known and unchanged);
    /// nil when it cannot be read.
    ///
    /// - Parameter url: The file.
    /// - Returns: Its fingerprint, or nil.
    static func fingerprint(of url: URL) -> FileFingerprint? {
        let path = url.path
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let size = Int64(info.st_size)
        let modified = info.st_mtim
        if let known = cache.withLockedValue({ $0[path] }), known.size == size,
            known.modified.tv_sec == modified.tv_sec, known.modified.tv_nsec == modified.tv_nsec
        {
            return known.fingerprint
        }
        let fingerprint = try? FileFingerprint(of: url)
        cache.withLockedValue { $0[path] = Entry(size: size, modified: modified, fingerprint: fingerprint) }
        return fingerprint
    }
}
