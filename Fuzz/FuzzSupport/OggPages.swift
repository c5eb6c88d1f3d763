// Ogg page checksums. libogg drops every page whose CRC does not match, so a
// fuzzer's mutations of an Ogg file would almost never reach the decoders;
// the fuzzers' custom mutator recomputes the CRC of every page after each
// mutation, and tests use the same code to patch hostile files by hand.

/// Finds and repairs Ogg pages: `OggS`, a 27-byte header, a segment table,
/// the body; the CRC (at offset 22, little-endian) covers the whole page with
/// the CRC field zeroed, polynomial 0x04C11DB7, not reflected, initial value 0.
package enum OggPages {
    private static let capture = Array("OggS".utf8)
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index) << 24
        for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        return crc
    }

    /// The length of the complete page at `offset` (header, segment table and
    /// body), or nil if no page starts there or it runs past the end.
    package static func pageLength(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard offset >= 0, bytes.count - offset >= 27,
            bytes[offset] == capture[0], bytes[offset + 1] == capture[1],
            bytes[offset + 2] == capture[2], bytes[offset + 3] == capture[3]
        else { return nil }
        let segments = Int(bytes[offset + 26])
        let header = 27 + segments
        guard bytes.count - offset >= header else { return nil }
        var length = header
        for i in (offset + 27)..<(offset + header) { length += Int(bytes[i]) }
        return bytes.count - offset >= length ? length : nil
    }

    /// The CRC a page of `length` bytes at `offset` must carry.
    package static func checksum(ofPageAt offset: Int, length: Int, in bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var crc: UInt32 = 0
        for i in offset..<(offset + length) {
            let byte = (22..<26).contains(i - offset) ? 0 : bytes[i]
            crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 24) ^ byte)]
        }
        return crc
    }

    /// Writes the right CRC into the complete page at `offset`; returns false
    /// if no complete page starts there.
    @discardableResult
    package static func repairPage(at offset: Int, in bytes: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        let readable = UnsafeBufferPointer(bytes)
        guard let length = pageLength(at: offset, in: readable) else { return false }
        let crc = checksum(ofPageAt: offset, length: length, in: readable)
        for i in 0..<4 { bytes[offset + 22 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
        return true
    }

    /// Repairs the CRC of every complete page in `bytes`, scanning from the
    /// start and skipping what is not a page; returns how many were repaired.
    @discardableResult
    package static func repairAll(in bytes: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var offset = 0
        var repaired = 0
        while offset + 27 <= bytes.count {
            if let length = pageLength(at: offset, in: UnsafeBufferPointer(bytes)) {
                repairPage(at: offset, in: bytes)
                repaired += 1
                offset += length
            } else {
                offset += 1
            }
        }
        return repaired
    }

    /// ``repairPage(at:in:)`` on an array.
    @discardableResult
    package static func repairPage(at offset: Int, in bytes: inout [UInt8]) -> Bool {
        bytes.withUnsafeMutableBufferPointer { repairPage(at: offset, in: $0) }
    }

    /// ``repairAll(in:)`` on an array.
    @discardableResult
    package static func repairAll(in bytes: inout [UInt8]) -> Int {
        bytes.withUnsafeMutableBufferPointer { repairAll(in: $0) }
    }
}
