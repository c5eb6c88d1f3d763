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

/// An open file, read and written with POSIX calls, that closes itself.
///
/// The core modules use FoundationEssentials, which has no `FileHandle`;
/// this is the little of it Backbeat needs (probing headers, FLAC metadata,
/// passthrough copies). Failures throw ``BackbeatError`` naming the file and
/// the system's reason.
final class FileDescriptor {
    private var descriptor: Int32
    let url: URL

    /// Opens `url` for reading.
    ///
    /// - Throws: ``BackbeatError/Code/readFailed`` with the system's reason.
    static func reading(_ url: URL) throws -> FileDescriptor {
        try FileDescriptor(url: url, flags: O_RDONLY, operation: "open")
    }

    /// Opens an existing file at `url` for writing from its start, truncating it.
    ///
    /// - Throws: ``BackbeatError/Code/writeFailed`` with the system's reason.
    static func writing(_ url: URL) throws -> FileDescriptor {
        try FileDescriptor(url: url, flags: O_WRONLY | O_TRUNC, operation: "open for writing")
    }

    private init(url: URL, flags: Int32, operation: String) throws {
        self.url = url
        descriptor = Glibc.open(url.path, flags | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw BackbeatError(
                flags == O_RDONLY ? .readFailed : .writeFailed, operation: operation, url: url,
                reason: Self.systemReason())
        }
    }

    deinit { if descriptor >= 0 { Glibc.close(descriptor) } }

    /// Reads up to `count` bytes from the current offset; fewer only at the end of the file.
    func read(upToCount count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        var filled = 0
        while filled < bytes.count {
            let got = bytes.withUnsafeMutableBytes {
                Glibc.read(descriptor, $0.baseAddress! + filled, $0.count - filled)
            }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else {
                throw BackbeatError(.readFailed, operation: "read", url: url, reason: Self.systemReason())
            }
            if got == 0 { break }
            filled += got
        }
        bytes.removeLast(bytes.count - filled)
        return bytes
    }

    /// Moves to `offset` bytes from the start.
    func seek(toOffset offset: Int64) throws {
        guard lseek(descriptor, off_t(offset), SEEK_SET) >= 0 else {
            throw BackbeatError(.readFailed, operation: "seek", url: url, reason: Self.systemReason())
        }
    }

    /// Moves to the end and returns the file's length.
    func seekToEnd() throws -> Int64 {
        let end = lseek(descriptor, 0, SEEK_END)
        guard end >= 0 else {
            throw BackbeatError(.readFailed, operation: "seek", url: url, reason: Self.systemReason())
        }
        return Int64(end)
    }

    /// The current offset from the start.
    func offset() throws -> Int64 {
        let at = lseek(descriptor, 0, SEEK_CUR)
        guard at >= 0 else {
            throw BackbeatError(.readFailed, operation: "seek", url: url, reason: Self.systemReason())
        }
        return Int64(at)
    }

    /// Writes all of `bytes` at the current offset.
    func write(_ bytes: [UInt8]) throws {
        var written = 0
        while written < bytes.count {
            let put = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if put < 0, errno == EINTR { continue }
            guard put > 0 else {
                throw BackbeatError(.writeFailed, operation: "write", url: url, reason: Self.systemReason())
            }
            written += put
        }
    }

    /// Flushes written data to the disk (fsync).
    func synchronize() throws {
        guard fsync(descriptor) == 0 else {
            throw BackbeatError(.writeFailed, operation: "fsync", url: url, reason: Self.systemReason())
        }
    }

    /// Closes the file; later calls fail. Closing twice does nothing.
    func close() throws {
        guard descriptor >= 0 else { return }
        let result = Glibc.close(descriptor)
        descriptor = -1
        guard result == 0 else {
            throw BackbeatError(.writeFailed, operation: "close", url: url, reason: Self.systemReason())
        }
    }

    private static func systemReason() -> String { String(cString: strerror(errno)) }
}

extension FileManager {
    /// The size in bytes that `attributesOfItem(atPath:)` reported, or 0.
    /// (FoundationEssentials gives an integer, Foundation an `NSNumber`.)
    static func fileSize(_ attributes: [FileAttributeKey: Any]) -> Int64 {
        switch attributes[.size] {
        case let size as UInt: Int64(clamping: size)
        case let size as Int: Int64(size)
        case let size as UInt64: Int64(clamping: size)
        case let size as Int64: size
        default: 0
        }
    }
}
