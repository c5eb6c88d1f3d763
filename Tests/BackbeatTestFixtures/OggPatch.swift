import Foundation
import FuzzSupport
import Testing

/// Rewrites bytes inside an Ogg page and recomputes the page's CRC (with the
/// fuzzers' ``OggPages``), to make hostile files that the tools refuse to write.
package enum OggPatch {
    package static func replace(_ old: [UInt8], with new: [UInt8], in url: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: old) })
        bytes.replaceSubrange(at..<(at + old.count), with: new)
        let page = try #require((0...at).reversed().first { bytes[$0...].starts(with: Array("OggS".utf8)) })
        try #require(OggPages.repairPage(at: page, in: &bytes))
        try Data(bytes).write(to: url)
    }

    /// Sets the granule position (the frame count it claims) of the file's last page.
    package static func setLastGranule(_ granule: Int64, in url: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        let page = try #require(bytes.indices.reversed().first { bytes[$0...].starts(with: Array("OggS".utf8)) })
        for i in 0..<8 {
            bytes[page + 6 + i] = UInt8(truncatingIfNeeded: UInt64(bitPattern: granule) >> (8 * UInt64(i)))
        }
        try #require(OggPages.repairPage(at: page, in: &bytes))
        try Data(bytes).write(to: url)
    }
}
