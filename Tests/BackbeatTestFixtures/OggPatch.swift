import Foundation
import Testing

/// Rewrites bytes inside an Ogg page and recomputes the page's CRC, to make
/// hostile files that the tools refuse to write.
package enum OggPatch {
    package static func replace(_ old: [UInt8], with new: [UInt8], in url: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: old) })
        bytes.replaceSubrange(at..<(at + old.count), with: new)
        let page = try #require((0...at).reversed().first { bytes[$0...].starts(with: Array("OggS".utf8)) })
        let segments = Int(bytes[page + 26])
        let length = 27 + segments + bytes[(page + 27)..<(page + 27 + segments)].reduce(0) { $0 + Int($1) }
        recomputeCRC(of: page, length: length, in: &bytes)
        try Data(bytes).write(to: url)
    }

    /// Sets the granule position (the frame count it claims) of the file's last page.
    package static func setLastGranule(_ granule: Int64, in url: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        let page = try #require(bytes.indices.reversed().first { bytes[$0...].starts(with: Array("OggS".utf8)) })
        for i in 0..<8 {
            bytes[page + 6 + i] = UInt8(truncatingIfNeeded: UInt64(bitPattern: granule) >> (8 * UInt64(i)))
        }
        let segments = Int(bytes[page + 26])
        let length = 27 + segments + bytes[(page + 27)..<(page + 27 + segments)].reduce(0) { $0 + Int($1) }
        recomputeCRC(of: page, length: length, in: &bytes)
        try Data(bytes).write(to: url)
    }

    static func recomputeCRC(of page: Int, length: Int, in bytes: inout [UInt8]) {
        for i in 22..<26 { bytes[page + i] = 0 }
        var crc: UInt32 = 0
        for byte in bytes[page..<(page + length)] {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        for i in 0..<4 { bytes[page + 22 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
    }
}
