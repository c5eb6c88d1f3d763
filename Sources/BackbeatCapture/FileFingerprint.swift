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

/// What a capture keeps of a file the game loaded, instead of its audio: its
/// path, size and a content hash (64-bit FNV-1a), so a replay can find it
/// again and tell whether it changed since.
package struct FileFingerprint: Sendable, Equatable {
    /// The path as the game gave it.
    package var path: String
    /// Its size in bytes.
    package var size: Int64
    /// FNV-1a (64 bits) of its bytes.
    package var hash: UInt64

    /// A fingerprint with known values.
    ///
    /// - Parameters:
    ///   - path: The file's path.
    ///   - size: Its size in bytes.
    ///   - hash: Its content hash.
    package init(path: String, size: Int64, hash: UInt64) {
        self.path = path
        self.size = size
        self.hash = hash
    }

    /// Reads the file at `url` through and fingerprints it.
    ///
    /// - Parameter url: The file.
    /// - Throws: ``BackbeatError/Code/fileNotFound`` or ``BackbeatError/Code/readFailed``.
    package init(of url: URL) throws {
        self = try Self.read(url, keepingAtMost: -1).fingerprint
    }

    /// Reads the file at `url` through once: its fingerprint, and its bytes
    /// when there are at most `limit` of them (what a capture keeps of a file
    /// that may change while the game runs).
    ///
    /// - Parameters:
    ///   - url: The file.
    ///   - limit: The most bytes to keep; a larger file (or a negative limit) keeps none.
    /// - Returns: The fingerprint, and the bytes or nil.
    /// - Throws: ``BackbeatError/Code/fileNotFound`` or ``BackbeatError/Code/readFailed``.
    package static func read(_ url: URL, keepingAtMost limit: Int) throws -> (
        fingerprint: FileFingerprint, bytes: [UInt8]?
    ) {
        // Non-blocking, so that a path naming a FIFO cannot hang the open; a
        // capture names files, so a device or a pipe is refused (reading
        // /dev/zero through would never end).
        let fd = Glibc.open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code: BackbeatError.Code = errno == ENOENT ? .fileNotFound : .readFailed
            throw BackbeatError(code, operation: "fingerprint", url: url, reason: String(cString: strerror(errno)))
        }
        defer { Glibc.close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw BackbeatError(.readFailed, operation: "fingerprint", url: url, reason: "not a regular file")
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var size: Int64 = 0
        var kept: [UInt8]? = limit >= 0 && status.st_size <= limit ? [] : nil
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let got = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw BackbeatError(
                    .readFailed, operation: "fingerprint", url: url, reason: String(cString: strerror(errno)))
            }
            if got == 0 { break }
            size += Int64(got)
            chunk.withUnsafeBufferPointer { bytes in
                for byte in bytes[0..<got] { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            }
            // A file that grew while it was read is kept only within the limit.
            if kept != nil, size <= limit {
                kept?.append(contentsOf: chunk[0..<got])
            } else {
                kept = nil
            }
        }
        return (FileFingerprint(path: url.path, size: size, hash: hash), kept)
    }

    /// Writes it into a record.
    ///
    /// - Parameter encoder: Where to write it.
    package func encode(into encoder: inout CaptureEncoder) {
        encoder.append(path)
        encoder.append(size)
        encoder.appendFixed(hash)
    }

    /// Reads one from a record.
    ///
    /// - Parameter decoder: The record's decoder.
    /// - Throws: ``CaptureFormatError`` when it is cut short or out of range.
    package init(from decoder: inout CaptureDecoder) throws(CaptureFormatError) {
        path = try decoder.string()
        size = try decoder.int64()
        guard size >= 0 else { throw .malformed("a negative file size") }
        hash = try decoder.fixed(UInt64.self)
    }
}
