import BackbeatSupport
import CZip

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A stored entry: a window of the archive file, read in place with `pread`.
struct StoredEntrySource: AudioByteSource {
    let file: ByteSourceReader
    let offset: Int64
    let size: Int64

    func read(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) throws -> Int {
        guard position >= 0, position < size else { return 0 }
        let n = Int(min(Int64(buffer.count), size - position))
        return try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<n]), at: offset + position)
    }
}

/// A compressed entry, decompressed by libzip as it is read: forward reads
/// continue, a read behind the position opens the entry again, a read ahead
/// decompresses and drops what lies between. The entry must deliver exactly
/// the bytes the archive declares.
final class DeflatedEntrySource: AudioByteSource, @unchecked Sendable {
    // @unchecked: `file` and `position` are used only under `zip.lock`, which also serialises libzip's archive.
    let zip: ZipHandle
    let index: Int
    let size: Int64
    let url: URL
    private var file: OpaquePointer?
    private var position: Int64 = 0

    init(zip: ZipHandle, index: Int, size: Int64, url: URL) throws {
        self.zip = zip
        self.index = index
        self.size = size
        self.url = url
        try zip.lock.withLock { try reopen() }
    }

    deinit { if let file { zip.lock.withLock { _ = zip_fclose(file) } } }

    private func reopen() throws {
        if let file { zip_fclose(file) }
        file = nil
        position = 0
        guard let opened = zip_fopen_index(zip.handle, UInt64(index), 0) else {
            throw zip.error(operation: "zip_fopen_index", url: url)
        }
        file = opened
    }

    /// Reads from libzip at the position; 0 at the entry's end.
    private func pull(_ pointer: UnsafeMutableRawPointer, _ count: Int) throws -> Int {
        guard let file else { return 0 }
        let n = zip_fread(file, pointer, UInt64(count))
        guard n >= 0 else {
            let code = zip_error_code_zip(zip_file_get_error(file))
            let reason = String(cString: zip_file_strerror(file))
            switch code {
            case ZIP_ER_INCONS:
                throw BackbeatError(
                    .entrySizeMismatch, operation: "zip_fread", url: url,
                    reason: "the entry does not deliver the \(size) bytes it declares (\(reason))")
            case ZIP_ER_ENCRNOTSUPP, ZIP_ER_NOPASSWD, ZIP_ER_WRONGPASSWD:
                throw BackbeatError(.encryptedEntry, operation: "zip_fread", url: url, reason: reason)
            default:
                throw BackbeatError(.corruptArchive, operation: "zip_fread", url: url, reason: reason)
            }
        }
        position += Int64(n)
        return Int(n)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0, offset >= 0, offset < size else { return 0 }
        return try zip.lock.withLock {
            if file == nil || offset < position { try reopen() }
            if offset > position {
                var scratch = [UInt8](repeating: 0, count: 64 * 1024)
                while position < offset {
                    let want = Int(min(Int64(scratch.count), offset - position))
                    let n = try scratch.withUnsafeMutableBytes { try pull($0.baseAddress!, want) }
                    if n == 0 { throw short() }
                }
            }
            let wanted = Int(min(Int64(buffer.count), size - offset))
            var filled = 0
            while filled < wanted {
                let n = try pull(base + filled, wanted - filled)
                if n == 0 { throw short() }
                filled += n
            }
            if position == size {
                // The declared end: the entry must end here too.
                var extra: UInt8 = 0
                if try pull(&extra, 1) > 0 {
                    throw BackbeatError(
                        .entrySizeMismatch, operation: "zip_fread", url: url,
                        reason: "the entry holds more than the \(size) bytes it declares")
                }
            }
            return filled
        }
    }

    private func short() -> BackbeatError {
        BackbeatError(
            .entrySizeMismatch, operation: "zip_fread", url: url,
            reason: "the entry ends after \(position) bytes but declares \(size)")
    }
}
