#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Backbeat's own base64 for tags that embed binary data
/// (METADATA_BLOCK_PICTURE). The decoder is strict and bounded: it never
/// reads outside its input, never allocates more than three quarters of the
/// input's length, and returns nil for anything that is not canonical-enough
/// base64 (bad characters, bad padding, impossible lengths).
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static let table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        return t
    }()

    /// Decodes standard base64 (RFC 4648 alphabet). Whitespace (space, tab,
    /// CR, LF) is skipped; padding is optional but, when present, must be
    /// correct and last.
    static func decode<S: Collection>(_ text: S) -> Data? where S.Element == UInt8 {
        var out = Data()
        out.reserveCapacity(text.count / 4 * 3 + 3)
        var quad: UInt32 = 0
        var count = 0
        var padding = 0
        for byte in text {
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { continue }
            if byte == UInt8(ascii: "=") {
                padding += 1
                if padding > 2 { return nil }
                continue
            }
            if padding > 0 { return nil }  // data after padding
            let v = table[Int(byte)]
            if v == 0xFF { return nil }
            quad = quad << 6 | UInt32(v)
            count += 1
            if count == 4 {
                out.append(UInt8(quad >> 16 & 0xFF))
                out.append(UInt8(quad >> 8 & 0xFF))
                out.append(UInt8(quad & 0xFF))
                quad = 0
                count = 0
            }
        }
        switch count {
        case 0:
            guard padding == 0 else { return nil }
        case 2:
            guard padding == 0 || padding == 2 else { return nil }
            out.append(UInt8(quad >> 4 & 0xFF))
        case 3:
            guard padding == 0 || padding == 1 else { return nil }
            out.append(UInt8(quad >> 10 & 0xFF))
            out.append(UInt8(quad >> 2 & 0xFF))
        default:
            return nil  // a single leftover character cannot encode a byte
        }
        return out
    }

    /// Encodes with padding, no line breaks.
    static func encode(_ data: Data) -> String {
        let bytes = [UInt8](data)
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let remaining = bytes.count - i
            let n =
                UInt32(bytes[i]) << 16 | (remaining > 1 ? UInt32(bytes[i + 1]) << 8 : 0)
                | (remaining > 2 ? UInt32(bytes[i + 2]) : 0)
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(remaining > 1 ? alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
            out.append(remaining > 2 ? alphabet[Int(n & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
