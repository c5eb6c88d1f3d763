import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where each entry's local header sits in a zip archive, and where its data
/// starts: what libzip does not say, and what reading a stored entry in place
/// needs. Read from the archive's own central directory (zip64 too), every
/// number bounded by the file's size; libzip has already opened and checked
/// the archive, so this only walks what it accepted.
struct ZipDirectory {
    /// The local header offset of each entry, in central-directory order (libzip's indexes).
    let localHeaderOffsets: [Int64]

    /// Walks the central directory of `file`, expecting `count` entries.
    ///
    /// - Throws: ``BackbeatError/Code/corruptArchive`` when a record is cut off or points outside the file.
    init(_ file: ByteSourceReader, count: Int) throws {
        func corrupt(_ reason: String) -> BackbeatError {
            BackbeatError(.corruptArchive, operation: "read zip directory", url: file.url, reason: reason)
        }
        let size = file.size
        let window = min(size, 22 + 65_535)
        let tail = try file.bytes(at: size - window, count: Int(window))
        guard tail.count >= 22,
            let end = stride(from: tail.count - 22, through: 0, by: -1).first(where: {
                Self.le32(tail, $0) == 0x0605_4B50
            })
        else { throw corrupt("no end of central directory record") }
        var total = Int64(Self.le16(tail, end + 10))
        var directorySize = Int64(Self.le32(tail, end + 12))
        var directoryOffset = Int64(Self.le32(tail, end + 16))
        if total == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            // zip64: the locator sits just before the end record and points at the zip64 end record.
            let locatorAt = size - window + Int64(end) - 20
            guard locatorAt >= 0 else { throw corrupt("zip64 locator is missing") }
            let locator = try file.bytes(at: locatorAt, count: 20)
            guard locator.count == 20, Self.le32(locator, 0) == 0x0706_4B50 else {
                throw corrupt("zip64 locator is missing")
            }
            let recordAt = Int64(bitPattern: Self.le64(locator, 8))
            guard recordAt >= 0, recordAt < size else { throw corrupt("zip64 end record is outside the file") }
            let record = try file.bytes(at: recordAt, count: 56)
            guard record.count == 56, Self.le32(record, 0) == 0x0606_4B50 else {
                throw corrupt("zip64 end record is damaged")
            }
            total = Int64(bitPattern: Self.le64(record, 32))
            directorySize = Int64(bitPattern: Self.le64(record, 40))
            directoryOffset = Int64(bitPattern: Self.le64(record, 48))
        }
        guard total == Int64(count), directoryOffset >= 0, directorySize >= 0,
            directorySize <= size, directoryOffset <= size - directorySize
        else { throw corrupt("the central directory lies outside the file or disagrees on the entry count") }
        let directory = try file.bytes(at: directoryOffset, count: Int(directorySize))
        var offsets: [Int64] = []
        offsets.reserveCapacity(count)
        var at = 0
        for index in 0..<count {
            guard at + 46 <= directory.count, Self.le32(directory, at) == 0x0201_4B50 else {
                throw corrupt("central directory record \(index) is damaged")
            }
            let nameLength = Int(Self.le16(directory, at + 28))
            let extraLength = Int(Self.le16(directory, at + 30))
            let commentLength = Int(Self.le16(directory, at + 32))
            var offset = Int64(Self.le32(directory, at + 42))
            let next = at + 46 + nameLength + extraLength + commentLength
            guard next <= directory.count else { throw corrupt("central directory record \(index) is cut off") }
            if offset == 0xFFFF_FFFF {
                // The zip64 extra field holds, in order, whichever of size, compressed size and offset overflowed.
                var skip = 0
                if Self.le32(directory, at + 24) == 0xFFFF_FFFF { skip += 8 }
                if Self.le32(directory, at + 20) == 0xFFFF_FFFF { skip += 8 }
                var e = at + 46 + nameLength
                let extraEnd = e + extraLength
                var found = false
                while e + 4 <= extraEnd {
                    let id = Self.le16(directory, e)
                    let length = Int(Self.le16(directory, e + 2))
                    if id == 1, e + 4 + skip + 8 <= min(extraEnd, e + 4 + length) {
                        offset = Int64(bitPattern: Self.le64(directory, e + 4 + skip))
                        found = true
                        break
                    }
                    e += 4 + length
                }
                guard found else { throw corrupt("central directory record \(index) lacks its zip64 offset") }
            }
            guard offset >= 0, offset < size else { throw corrupt("entry \(index)'s local header is outside the file") }
            offsets.append(offset)
            at = next
        }
        localHeaderOffsets = offsets
    }

    /// What an entry's local header says.
    struct LocalHeader {
        /// Where the entry's (possibly compressed) data starts.
        let dataOffset: Int64
        /// The sizes, unless the header defers them to a data descriptor (bit 3) or to zip64.
        let compressedSize: Int64?
        let size: Int64?
    }

    /// Reads the local header at `offset`.
    static func localHeader(_ file: ByteSourceReader, at offset: Int64, entry: String) throws -> LocalHeader {
        let header = try file.bytes(at: offset, count: 30)
        guard header.count == 30, le32(header, 0) == 0x0403_4B50 else {
            throw BackbeatError(
                .corruptArchive, operation: "read zip entry", url: file.url,
                reason: "\"\(entry)\" has no local header where the directory says")
        }
        let deferred = le16(header, 6) & 0x0008 != 0
        let compressed = Int64(le32(header, 18))
        let size = Int64(le32(header, 22))
        let known = !deferred && compressed != 0xFFFF_FFFF && size != 0xFFFF_FFFF
        return LocalHeader(
            dataOffset: offset + 30 + Int64(le16(header, 26)) + Int64(le16(header, 28)),
            compressedSize: known ? compressed : nil, size: known ? size : nil)
    }

    static func le16(_ b: [UInt8], _ o: Int) -> UInt16 { UInt16(b[o]) | UInt16(b[o + 1]) << 8 }
    static func le32(_ b: [UInt8], _ o: Int) -> UInt32 {
        UInt32(b[o]) | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 3]) << 24
    }
    static func le64(_ b: [UInt8], _ o: Int) -> UInt64 { UInt64(le32(b, o)) | UInt64(le32(b, o + 4)) << 32 }
}
