import BackbeatSupport
import Foundation

/// Persistent IDs from file content.
///
/// The ID hashes the file's length and five 4 KiB windows at fixed fractions of
/// it (start, ¼, ½, ¾, end). It depends only on the bytes, so a rename, a move,
/// a rescan or a rebuilt index gives the same ID, and two byte-identical files
/// are recognised as duplicates. Reading 20 KiB per file keeps a cold scan
/// cheap, where hashing whole files would read every byte of the library.
/// Editing tags rewrites bytes inside the windows, so it gives a new ID; the
/// scanner carries play statistics over from the item that was at that path.
enum ContentIdentity {
    static let windowBytes = 4096
    static let windows = 5

    /// The ID of the open file `descriptor` of `length` bytes. Never 0.
    static func persistentID(descriptor: Int32, length: Int64, url: URL) throws -> UInt64 {
        var hasher = Hasher64()
        hasher.combine(UInt64(bitPattern: length))
        var buffer = [UInt8](repeating: 0, count: windowBytes)
        var lastOffset: Int64 = -1
        for i in 0..<windows {
            // In 128 bits: a sparse file on tmpfs may claim up to 2^63 - 1
            // bytes, and `length * 3` would overflow. The result is the same
            // as in 64 bits wherever that did not overflow, so IDs are unchanged.
            let fraction = Int64(Int128(length) * Int128(i) / Int128(windows - 1))
            let offset = max(0, i == windows - 1 ? length - Int64(windowBytes) : fraction)
            guard offset != lastOffset else { continue }
            lastOffset = offset
            let wanted = Int(min(Int64(windowBytes), length - offset))
            guard wanted > 0 else { break }
            let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, wanted, off_t(offset)) }
            guard got == wanted else {
                throw BackbeatError(
                    .unreadableFile, operation: "pread", url: url,
                    reason: got < 0 ? String(cString: strerror(errno)) : "file shrank while reading")
            }
            hasher.combine(buffer[..<wanted])
        }
        let id = hasher.value
        return id == 0 ? 1 : id
    }
}

/// A 64-bit non-cryptographic hash (64-bit multiply-xorshift over 8-byte words,
/// murmur-style finaliser). Stable across runs and machines, unlike `Hasher`.
struct Hasher64 {
    private(set) var state: UInt64 = 0x9E37_79B9_7F4A_7C15

    mutating func combine(_ word: UInt64) {
        state ^= Self.mix(word)
        state = (state << 27 | state >> 37) &* 0x9E37_79B9_7F4A_7C15 &+ 0x52DC_E729
    }

    mutating func combine(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { raw in
            var index = 0
            while index + 8 <= raw.count {
                combine(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self).littleEndian)
                index += 8
            }
            var tail: UInt64 = 0
            for (shift, byte) in raw[index...].enumerated() { tail |= UInt64(byte) << (8 * UInt64(shift)) }
            combine(tail ^ UInt64(raw.count) << 56)
        }
    }

    mutating func combine(_ text: String) {
        combine(ArraySlice(Array(text.utf8)))
    }

    var value: UInt64 { Self.mix(state) }

    private static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 33)) &* 0xFF51_AFD7_ED55_8CCD
        z = (z ^ (z >> 33)) &* 0xC4CE_B9FE_1A85_EC53
        return z ^ (z >> 33)
    }
}
