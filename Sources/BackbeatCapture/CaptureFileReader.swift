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

/// Reads a capture file record by record.
///
/// A file that does not start as a capture, or that a newer format wrote,
/// is refused at ``init(url:)``. Damage further on (a block cut short by a
/// crash, a block whose CRC fails, a record that makes no sense) ends the
/// records early: ``next()`` returns nil and ``damage`` says where and why,
/// so a replay can go up to it.
package final class CaptureFileReader {
    /// The file.
    package let url: URL
    /// The format version the file was written in.
    package let version: UInt16
    /// Why reading stopped before the file's end, with the byte offset; nil when it has not.
    package private(set) var damage: String?
    /// The frame of the last record read.
    package private(set) var lastFrame: Int64 = 0

    /// The largest frame a record may carry: over 80 days at 192 kHz.
    package static let maximumFrame: Int64 = 1 << 40

    private let descriptor: Int32
    private var fileOffset: Int64
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false

    /// Opens `url` and checks its header.
    ///
    /// - Parameter url: The capture file.
    /// - Throws: ``BackbeatError`` with ``BackbeatError/Code/fileNotFound`` or
    ///   ``BackbeatError/Code/readFailed`` when it cannot be read,
    ///   ``BackbeatError/Code/notACapture`` when it is not a capture, and
    ///   ``BackbeatError/Code/captureVersionUnsupported`` when a newer format wrote it.
    package init(url: URL) throws {
        self.url = url
        // Non-blocking, so that a FIFO cannot hang the open; only a regular
        // file is read (a device such as /dev/zero would never end).
        let fd = Glibc.open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code: BackbeatError.Code = errno == ENOENT ? .fileNotFound : .readFailed
            throw BackbeatError(code, operation: "read capture", url: url, reason: String(cString: strerror(errno)))
        }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(fd)
            throw BackbeatError(
                .notACapture, operation: "read capture", url: url, reason: "it is not a regular file")
        }
        descriptor = fd
        var header = [UInt8](repeating: 0, count: CaptureFormat.headerBytes)
        let got = Self.read(fd, into: &header)
        guard got == header.count, Array(header[0..<8]) == CaptureFormat.magic else {
            Glibc.close(fd)
            throw BackbeatError(
                .notACapture, operation: "read capture", url: url,
                reason: "it does not start with a capture's header")
        }
        version = UInt16(header[8]) | UInt16(header[9]) << 8
        guard version <= CaptureFormat.version, version >= 1 else {
            Glibc.close(fd)
            throw BackbeatError(
                .captureVersionUnsupported, operation: "read capture", url: url,
                reason: "format version \(version); this build reads up to \(CaptureFormat.version)")
        }
        fileOffset = Int64(header.count)
    }

    deinit { Glibc.close(descriptor) }

    /// The next record, or nil at the end of the file or at damage (see ``damage``).
    package func next() -> CaptureRecord? {
        while true {
            if let record = parseRecord() { return record }
            if damage != nil || atEnd { return nil }
            guard readBlock() else {
                if position < buffer.count, damage == nil {
                    damage = "a record is cut short at byte \(fileOffset)"
                }
                return nil
            }
        }
    }

    /// Every record left, up to the end or the damage.
    package func readAll() -> [CaptureRecord] {
        var records: [CaptureRecord] = []
        while let record = next() { records.append(record) }
        return records
    }

    /// A record parsed from the buffered bytes, or nil when they hold no whole one.
    private func parseRecord() -> CaptureRecord? {
        guard damage == nil, position < buffer.count else { return nil }
        var decoder = CaptureDecoder(buffer[position...])
        do throws(CaptureFormatError) {
            let kind = try decoder.uint64()
            let delta = try decoder.int64()
            let length = try decoder.uint64()
            guard kind <= UInt64(UInt16.max) else { throw CaptureFormatError.malformed("unknown record kind \(kind)") }
            guard length <= UInt64(CaptureFormat.maximumRecordBytes) else {
                throw CaptureFormatError.malformed("a record of \(length) bytes")
            }
            guard decoder.remaining >= Int(length) else { return nil }
            let (frame, overflow) = lastFrame.addingReportingOverflow(delta)
            guard !overflow, frame >= 0, frame <= Self.maximumFrame else {
                throw CaptureFormatError.malformed("a record at frame \(lastFrame) + \(delta)")
            }
            let start = buffer.count - decoder.remaining
            let payload = Array(buffer[start..<(start + Int(length))])
            position = start + Int(length)
            lastFrame = frame
            return CaptureRecord(kind: CaptureKind(UInt16(kind)), frame: frame, payload: payload[...])
        } catch .truncated {
            return nil
        } catch {
            damage = "\(error) near byte \(fileOffset - Int64(buffer.count - position))"
            return nil
        }
    }

    /// Reads and checks the next block, appending its payload; false at the end or at damage.
    private func readBlock() -> Bool {
        // Keep only what is not parsed yet.
        if position > 0 {
            buffer.removeFirst(position)
            position = 0
        }
        var header = [UInt8](repeating: 0, count: CaptureFormat.blockHeaderBytes)
        let got = Self.read(descriptor, into: &header)
        if got == 0 {
            atEnd = true
            return false
        }
        guard got == header.count else {
            damage = "the file ends inside a block's header at byte \(fileOffset)"
            return false
        }
        let length = Int(UInt32(header[0]) | UInt32(header[1]) << 8 | UInt32(header[2]) << 16 | UInt32(header[3]) << 24)
        let crc = UInt32(header[4]) | UInt32(header[5]) << 8 | UInt32(header[6]) << 16 | UInt32(header[7]) << 24
        guard length > 0, length <= CaptureFormat.maximumBlockBytes else {
            damage = "a block of \(length) bytes at byte \(fileOffset)"
            return false
        }
        var payload = [UInt8](repeating: 0, count: length)
        let read = Self.read(descriptor, into: &payload)
        guard read == length else {
            damage = "the file ends inside the block at byte \(fileOffset) (\(read) of \(length) bytes)"
            return false
        }
        guard CRC32.checksum(payload) == crc else {
            damage = "the block at byte \(fileOffset) fails its check"
            return false
        }
        fileOffset += Int64(CaptureFormat.blockHeaderBytes + length)
        buffer.append(contentsOf: payload)
        return true
    }

    /// Reads until `bytes` is full or the file ends; returns the bytes read (-1 on error).
    private static func read(_ fd: Int32, into bytes: inout [UInt8]) -> Int {
        bytes.withUnsafeMutableBytes { buffer -> Int in
            var offset = 0
            while offset < buffer.count {
                let got = Glibc.read(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if got < 0 {
                    if errno == EINTR { continue }
                    return offset == 0 ? -1 : offset
                }
                if got == 0 { break }
                offset += got
            }
            return offset
        }
    }
}
