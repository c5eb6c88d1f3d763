import Foundation

/// Pictures built byte by byte for the artwork tests: a PNG of any size whose
/// pixels are all zero (compressed with fixed-Huffman deflate, so a 16,384 ×
/// 16,384 picture is a few hundred kilobytes and nothing large sits in git),
/// and small GIF and BMP files that stb would decode.
enum TestImages {
    /// A PNG of `width` × `height` pixels, all black (grey level 0), in the
    /// given PNG colour type (0 grey, 2 RGB, 6 RGBA) and bit depth.
    static func blackPNG(width: Int, height: Int, colorType: UInt8 = 0, bitDepth: UInt8 = 8) -> Data {
        let channels: Int = [0: 1, 2: 3, 4: 2, 6: 4][colorType] ?? 1
        let rowBytes = 1 + (width * channels * Int(bitDepth) + 7) / 8  // filter byte + pixels
        let raw = rowBytes * height  // every byte is zero: filter 0, pixels 0
        var ihdr = Data()
        ihdr.appendBigEndian(UInt32(width))
        ihdr.appendBigEndian(UInt32(height))
        ihdr.append(contentsOf: [bitDepth, colorType, 0, 0, 0])
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        png.appendChunk("IHDR", ihdr)
        png.appendChunk("IDAT", zlibOfZeros(count: raw))
        png.appendChunk("IEND", Data())
        return png
    }

    /// A zlib stream of `count` zero bytes: one fixed-Huffman block with a
    /// literal 0, then matches of 258 at distance 1, then literals.
    static func zlibOfZeros(count: Int) -> Data {
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE 01: fixed Huffman
        var left = count
        if left > 0 {
            bits.writeCode(0x30, length: 8)  // literal 0
            left -= 1
        }
        while left >= 258 {
            bits.writeCode(0xC5, length: 8)  // length symbol 285: 258 bytes
            bits.writeCode(0, length: 5)  // distance code 0: distance 1
            left -= 258
        }
        for _ in 0..<left { bits.writeCode(0x30, length: 8) }
        bits.writeCode(0, length: 7)  // end of block (256)
        var out = Data([0x78, 0x01])
        out.append(bits.finish())
        let adler = (UInt32(count % 65_521) << 16) | 1  // a = 1, b = count: all bytes are zero
        out.appendBigEndian(adler)
        return out
    }

    /// A 2 × 2 GIF89a (a valid header and image: stb reads it).
    static let gif = Data([
        0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x02, 0x00, 0x02, 0x00, 0x80, 0x00, 0x00,  // header, 2×2, 2-colour table
        0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF,  // black, white
        0x2C, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x02, 0x00, 0x00,  // image descriptor
        0x02, 0x02, 0x84, 0x51, 0x00,  // LZW min code size 2, one 2-byte block, terminator
        0x3B,
    ])

    /// A 2 × 2, 24-bit BMP, all red.
    static var bmp: Data {
        var d = Data("BM".utf8)
        let pixelBytes = 2 * 8  // two rows of 2 × 3 bytes, padded to 8
        d.appendLittleEndian(UInt32(54 + pixelBytes))
        d.appendLittleEndian(UInt32(0))
        d.appendLittleEndian(UInt32(54))
        d.appendLittleEndian(UInt32(40))  // BITMAPINFOHEADER
        d.appendLittleEndian(UInt32(2))
        d.appendLittleEndian(UInt32(2))
        d.appendLittleEndian(UInt16(1))
        d.appendLittleEndian(UInt16(24))
        for _ in 0..<6 { d.appendLittleEndian(UInt32(0)) }
        for _ in 0..<2 { d.append(contentsOf: [0, 0, 255, 0, 0, 255, 0, 0]) }
        return d
    }

    private struct BitWriter {
        var bytes = [UInt8]()
        var current: UInt8 = 0
        var used = 0

        mutating func write(_ value: UInt32, count: Int) {  // LSB first
            for i in 0..<count { push(UInt8((value >> UInt32(i)) & 1)) }
        }

        mutating func writeCode(_ code: UInt32, length: Int) {  // Huffman codes: MSB first
            for i in (0..<length).reversed() { push(UInt8((code >> UInt32(i)) & 1)) }
        }

        private mutating func push(_ bit: UInt8) {
            current |= bit << UInt8(used)
            used += 1
            if used == 8 {
                bytes.append(current)
                current = 0
                used = 0
            }
        }

        mutating func finish() -> Data {
            if used > 0 { bytes.append(current) }
            return Data(bytes)
        }
    }
}

extension Data {
    fileprivate mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    fileprivate mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    fileprivate mutating func appendChunk(_ type: String, _ body: Data) {
        appendBigEndian(UInt32(body.count))
        var typed = Data(type.utf8)
        typed.append(body)
        append(typed)
        appendBigEndian(crc32(typed))
    }
}

private func crc32(_ data: Data) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in data {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
    }
    return crc ^ 0xFFFF_FFFF
}
