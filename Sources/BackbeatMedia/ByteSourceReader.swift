import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An ``AudioByteSource`` with what it reports checked, and the name errors
/// give it: the door every decoder reads through.
///
/// The size is read once and bounded; reads never go past it, are retried
/// when short, and a source that ends early, returns more than asked or
/// throws becomes a ``BackbeatError`` naming `url`.
package struct ByteSourceReader: Sendable {
    /// The largest size accepted (256 TiB), so offsets plus counts never overflow.
    package static let maxSize: Int64 = 1 << 48

    package let source: any AudioByteSource
    /// The name in errors: the file, `memory:NAME` or `zip:ARCHIVE:ENTRY`.
    package let url: URL
    package let size: Int64

    /// Checks the source's size.
    ///
    /// - Throws: `.readFailed` when the source throws or reports a size out of
    ///   `0...maxSize`; `.emptyFile` for zero bytes.
    package init(source: any AudioByteSource, url: URL) throws {
        self.source = source
        self.url = url
        let size: Int64
        do {
            size = try source.size
        } catch {
            throw Self.wrap(error, operation: "size", url: url)
        }
        guard size >= 0, size <= Self.maxSize else {
            throw BackbeatError(
                .readFailed, operation: "size", url: url,
                reason: "the source reports an impossible size of \(size) bytes")
        }
        guard size > 0 else {
            throw BackbeatError(.emptyFile, operation: "open", url: url, reason: "the source has zero bytes")
        }
        self.size = size
    }

    /// Fills `buffer` from `offset`, stopping only at ``size``; returns the bytes read.
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard offset >= 0, offset < size, buffer.count > 0 else { return 0 }
        let wanted = Int(min(Int64(buffer.count), size - offset))
        var filled = 0
        while filled < wanted {
            let part = UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<wanted])
            let got: Int
            do {
                got = try source.read(into: part, at: offset + Int64(filled))
            } catch {
                throw Self.wrap(error, operation: "read", url: url)
            }
            guard got >= 0, got <= part.count else {
                throw BackbeatError(
                    .readFailed, operation: "read", url: url,
                    reason: "the source returned \(got) bytes for a read of \(part.count)")
            }
            if got == 0 {
                throw BackbeatError(
                    .truncatedFile, operation: "read", url: url,
                    reason: "the source ended at byte \(offset + Int64(filled)) but reports a size of \(size)")
            }
            filled += got
        }
        return filled
    }

    /// Up to `count` bytes from `offset` (fewer only at the end).
    package func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
        let n = Int(max(0, min(Int64(max(0, count)), size - offset)))
        var bytes = [UInt8](repeating: 0, count: n)
        let got = try bytes.withUnsafeMutableBytes { try read(into: $0, at: offset) }
        bytes.removeLast(n - got)
        return bytes
    }

    static func wrap(_ error: any Error, operation: String, url: URL) -> BackbeatError {
        if let error = error as? BackbeatError { return error }
        return BackbeatError(.readFailed, operation: operation, url: url, reason: "the source failed: \(error)")
    }
}

/// A position in a ``ByteSourceReader`` and the first error met, for C
/// libraries that read through callbacks (libsndfile's virtual I/O,
/// vorbisfile's callbacks), which can only return -1 or a short count. The
/// decoder throws ``error`` in place of the library's vaguer reason.
final class ByteSourceCursor {
    let reader: ByteSourceReader
    var position: Int64 = 0
    private(set) var error: BackbeatError?

    init(_ reader: ByteSourceReader) { self.reader = reader }

    /// The cursor a C library hands back as its user data (passed unretained; the decoder owns it).
    static func from(_ user: UnsafeMutableRawPointer?) -> ByteSourceCursor {
        Unmanaged<ByteSourceCursor>.fromOpaque(user!).takeUnretainedValue()
    }

    /// Reads at the position and advances; -1 after an error (kept in ``error``).
    func read(_ pointer: UnsafeMutableRawPointer?, count: Int) -> Int {
        guard let pointer, count > 0 else { return 0 }
        do {
            let n = try reader.read(into: UnsafeMutableRawBufferPointer(start: pointer, count: count), at: position)
            position += Int64(n)
            return n
        } catch {
            if self.error == nil { self.error = ByteSourceReader.wrap(error, operation: "read", url: reader.url) }
            return -1
        }
    }

    /// Moves like `lseek`; returns the new position, or -1 for a position before the start or past ``maxSize``.
    func seek(_ offset: Int64, whence: Int32) -> Int64 {
        let base: Int64
        switch whence {
        case 0: base = 0
        case 1: base = position
        case 2: base = reader.size
        default: return -1
        }
        let (target, overflow) = base.addingReportingOverflow(offset)
        guard !overflow, target >= 0, target <= ByteSourceReader.maxSize else { return -1 }
        position = target
        return target
    }

    /// The error a read met, or `fallback`.
    func error(or fallback: BackbeatError) -> BackbeatError { error ?? fallback }
}
