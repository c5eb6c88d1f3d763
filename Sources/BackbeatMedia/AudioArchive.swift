import BackbeatSupport
import CZip

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A zip archive of sounds, the pack file most games ship, opened through libzip.
///
/// Entries become ``AudioAsset``s that decode straight from the archive:
/// a stored (uncompressed) entry is read in place, at its data's offset in
/// the archive file, with no copy; a deflated one is decompressed as it is
/// read (forward; a seek backwards starts the entry again). Players stream
/// either a chunk at a time.
///
/// ```swift
/// let pack = try AudioArchive(url: URL(fileURLWithPath: "pack.zip"))
/// let theme = try pack.asset(path: "music/theme.ogg")
/// let item = PlayerItem(asset: theme)
/// ```
///
/// Errors: ``BackbeatError/Code/notAnArchive``, ``BackbeatError/Code/corruptArchive``,
/// ``BackbeatError/Code/entryNotFound``, ``BackbeatError/Code/entrySizeMismatch`` (an entry whose
/// declared size is not what it delivers) and ``BackbeatError/Code/encryptedEntry``.
public final class AudioArchive: Sendable {
    /// The archive file.
    public let url: URL
    /// The entries' paths inside the archive, in the archive's order (directories left out).
    public let paths: [String]
    let zip: ZipHandle
    private let file: ByteSourceReader
    private let directory: LockedValueBox<ZipDirectory?> = LockedValueBox(nil)

    /// Opens the zip archive at `url` and reads its directory.
    ///
    /// - Parameter url: The `.zip` file.
    /// - Throws: ``BackbeatError/Code/fileNotFound``, `.notAFile`, `.emptyFile`, `.readFailed`,
    ///   ``BackbeatError/Code/notAnArchive`` or ``BackbeatError/Code/corruptArchive``.
    public init(url: URL) throws {
        self.url = url
        let source = try AudioFileSource(url: url)
        file = try ByteSourceReader(source: source, url: url)
        zip = try ZipHandle(url: url)
        paths = zip.names().filter { !$0.hasSuffix("/") }
    }

    /// The asset of the entry at `path` (such as `music/theme.ogg`); nothing is decoded yet.
    ///
    /// - Parameters:
    ///   - path: the entry's path inside the archive, exactly as stored.
    ///   - loopPoints: a loop region that replaces the file's `LOOPSTART` tags; nil keeps them.
    ///   - looping: how many times a music player plays the loop region.
    /// - Throws: ``BackbeatError/Code/entryNotFound``, ``BackbeatError/Code/encryptedEntry``,
    ///   ``BackbeatError/Code/entrySizeMismatch`` or ``BackbeatError/Code/corruptArchive``.
    public func asset(path: String, loopPoints: LoopPoints? = nil, looping: Looping = .forever) throws -> AudioAsset {
        AudioAsset(
            source: try source(path: path), url: AudioArchive.entryURL(archive: url, path: path),
            loopPoints: loopPoints, looping: looping, archiveEntry: .init(archive: url, path: path))
    }

    /// The bytes of the entry at `path`, as a byte source (stored: in place; deflated: streamed).
    ///
    /// - Parameter path: The entry's path inside the archive, such as `Music/theme.ogg`.
    /// - Returns: A byte source for the entry, readable from any thread.
    /// - Throws: as ``asset(path:loopPoints:looping:)``.
    public func source(path: String) throws -> any AudioByteSource {
        let entryURL = AudioArchive.entryURL(archive: url, path: path)
        let stat = try zip.stat(path: path, entryURL: entryURL)
        guard stat.encryption == 0 else {
            throw BackbeatError(
                .encryptedEntry, operation: "open entry", url: entryURL, reason: "the entry is encrypted")
        }
        let directory = try self.directory.withLockedValue { cached in
            if let cached { return cached }
            let walked = try ZipDirectory(file, count: zip.count)
            cached = walked
            return walked
        }
        guard stat.index < directory.localHeaderOffsets.count else {
            throw BackbeatError(
                .corruptArchive, operation: "open entry", url: entryURL, reason: "entry index out of range")
        }
        let local = try ZipDirectory.localHeader(
            file, at: directory.localHeaderOffsets[stat.index], entry: path)
        func mismatch(_ reason: String) -> BackbeatError {
            BackbeatError(.entrySizeMismatch, operation: "open entry", url: entryURL, reason: reason)
        }
        if let size = local.size, size != stat.size {
            throw mismatch("the directory declares \(stat.size) bytes, the local header \(size)")
        }
        if let compressed = local.compressedSize, compressed != stat.compressedSize {
            throw mismatch(
                "the directory declares \(stat.compressedSize) compressed bytes, the local header \(compressed)")
        }
        guard stat.compressedSize <= file.size - min(file.size, local.dataOffset) else {
            throw mismatch("the entry declares \(stat.compressedSize) bytes but the archive ends before them")
        }
        if stat.method == 0 {
            guard stat.size == stat.compressedSize else {
                throw mismatch("a stored entry declares \(stat.size) bytes but stores \(stat.compressedSize)")
            }
            return StoredEntrySource(file: file, offset: local.dataOffset, size: stat.size)
        }
        return try DeflatedEntrySource(zip: zip, index: stat.index, size: stat.size, url: entryURL)
    }

    /// Resolves `archive.zip:path/inside` (the archive a file, the path inside it) to the entry's asset.
    ///
    /// A reference without `.zip:` is not an archive entry: nil.
    ///
    /// - Parameters:
    ///   - reference: A path of the form `archive.zip:path/inside`.
    ///   - looping: Whether the asset loops (default: forever, between its loop points or whole).
    /// - Returns: The entry's asset, or nil when `reference` names no archive entry.
    /// - Throws: as ``init(url:)`` and ``asset(path:loopPoints:looping:)``.
    public static func asset(reference: String, looping: Looping = .forever) throws -> AudioAsset? {
        guard let (archive, path) = entryReference(reference) else { return nil }
        return try AudioArchive(url: archive).asset(path: path, looping: looping)
    }

    /// Splits `archive.zip:path/inside` into the archive file and the path inside it;
    /// nil for a reference without `.zip:` (any case).
    package static func entryReference(_ reference: String) -> (archive: URL, path: String)? {
        let bytes = Array(reference.utf8)
        let marker = Array(".zip:".utf8)
        guard bytes.count > marker.count,
            let at = (0...(bytes.count - marker.count)).first(where: { i in
                (0..<marker.count).allSatisfy { bytes[i + $0] | (marker[$0] >= 0x61 ? 0x20 : 0) == marker[$0] }
            })
        else { return nil }
        let archive = String(decoding: bytes[..<(at + 4)], as: UTF8.self)
        let path = String(decoding: bytes[(at + marker.count)...], as: UTF8.self)
        return (URL(fileURLWithPath: archive), path)
    }

    /// The name an entry's asset carries: `zip:///ARCHIVE:PATH`.
    static func entryURL(archive: URL, path: String) -> URL {
        AudioAsset.url(scheme: "zip", name: archive.path + ":" + path)
    }
}
