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

/// Random-access bytes that hold an encoded sound: Backbeat's one file interface.
///
/// A file on disk, bytes in memory (`Data`), an entry of
/// a zip archive (``AudioArchive``), or a game's own asset system: every
/// decoder reads through this protocol, a piece at a time, so a song streams
/// from it without a whole-file copy.
///
/// Reads may come from several threads at once (an asset loading its
/// properties while a player streams the same bytes), each with its own
/// offset, as `pread` does. What a source reports is checked: a negative or
/// changing size, a read that returns more than asked or stops before the
/// size, or a thrown error each become a ``BackbeatError`` naming the source.
public protocol AudioByteSource: Sendable {
    /// The number of bytes.
    ///
    /// - Throws: any error; Backbeat reports it as ``BackbeatError/Code/readFailed``.
    var size: Int64 { get throws }

    /// Copies bytes from `offset` into `buffer`.
    ///
    /// - Parameters:
    ///   - buffer: where the bytes go; at most `buffer.count` are copied.
    ///   - offset: the first byte's position, `0..<size`.
    /// - Returns: the number of bytes copied: fewer than `buffer.count` only at the end, 0 at or past the end.
    /// - Throws: any error; Backbeat reports it as ``BackbeatError/Code/readFailed``.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int
}

extension Data: AudioByteSource {
    /// The number of bytes.
    public var size: Int64 { Int64(count) }

    /// Copies bytes from `offset` into `buffer`.
    ///
    /// - Parameters:
    ///   - buffer: Where the bytes go; at most `buffer.count` are copied.
    ///   - offset: The first byte's position; out of range copies nothing.
    /// - Returns: The number of bytes copied, 0 at or past the end.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard offset >= 0, offset < Int64(count), buffer.count > 0 else { return 0 }
        let start = Int(offset)
        let n = Swift.min(buffer.count, count - start)
        let from = index(startIndex, offsetBy: start)
        copyBytes(to: buffer.bindMemory(to: UInt8.self), from: from..<index(from, offsetBy: n))
        return n
    }
}

/// A file on disk as an ``AudioByteSource``: `pread` on a descriptor that stays open.
final class AudioFileSource: AudioByteSource {
    /// The file.
    let url: URL
    private let descriptor: Int32
    private let length: Int64

    /// Opens the file at `url` for reading.
    ///
    /// - Parameter url: A regular, non-empty file.
    /// - Throws: ``BackbeatError/Code/fileNotFound``, `.notAFile`, `.emptyFile` or `.readFailed`.
    init(url: URL) throws {
        try BackbeatError.checkReadableFile(url, operation: "open")
        self.url = url
        descriptor = Glibc.open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw BackbeatError(.readFailed, operation: "open", url: url, reason: String(cString: strerror(errno)))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw BackbeatError(.readFailed, operation: "fstat", url: url, reason: reason)
        }
        length = Int64(status.st_size)
    }

    deinit { Glibc.close(descriptor) }

    /// The file's size when it was opened.
    var size: Int64 { length }

    /// Copies bytes from `offset` into `buffer` (`pread`).
    ///
    /// - Parameters:
    ///   - buffer: Where the bytes go; at most `buffer.count` are copied.
    ///   - offset: The first byte's position in the file.
    /// - Returns: The number of bytes copied: fewer than asked only at the end of the file.
    /// - Throws: ``BackbeatError/Code/readFailed`` when `pread` fails.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0, offset >= 0 else { return 0 }
        var filled = 0
        while filled < buffer.count {
            let got = pread(descriptor, base + filled, buffer.count - filled, off_t(offset) + off_t(filled))
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else {
                throw BackbeatError(.readFailed, operation: "read", url: url, reason: String(cString: strerror(errno)))
            }
            if got == 0 { break }
            filled += got
        }
        return filled
    }
}
