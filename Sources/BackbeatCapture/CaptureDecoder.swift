/// Reads what ``CaptureEncoder`` wrote, checking every length and range
/// against what is left, so a damaged or hostile payload is a
/// ``CaptureFormatError``, never a trap.
package struct CaptureDecoder {
    private let bytes: ArraySlice<UInt8>
    private var position: Int

    /// A decoder over one record's payload.
    ///
    /// - Parameter bytes: The payload.
    package init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    /// Whether every byte was read.
    package var isAtEnd: Bool { position == bytes.endIndex }

    /// Bytes not read yet.
    package var remaining: Int { bytes.endIndex - position }

    /// An unsigned varint.
    package mutating func uint64() throws(CaptureFormatError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.endIndex else { throw .truncated("a number runs past the record's end") }
            let byte = bytes[position]
            position += 1
            guard shift < 64, shift < 63 || byte <= 1 else { throw .malformed("a number is longer than 64 bits") }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// A zigzag-coded signed varint.
    package mutating func int64() throws(CaptureFormatError) -> Int64 {
        let raw = try uint64()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// An `Int` (zigzag), within `range`.
    ///
    /// - Parameter range: The values allowed.
    package mutating func int(in range: ClosedRange<Int> = Int.min...Int.max) throws(CaptureFormatError) -> Int {
        let value = try int64()
        guard value >= Int64(range.lowerBound), value <= Int64(range.upperBound) else {
            throw .malformed("\(value) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return Int(value)
    }

    /// A `UInt32` varint.
    package mutating func uint32() throws(CaptureFormatError) -> UInt32 {
        let value = try uint64()
        guard let narrow = UInt32(exactly: value) else { throw .malformed("\(value) does not fit 32 bits") }
        return narrow
    }

    /// A count of things that follow, at most `maximum`, and at most the
    /// bytes left divided by `minimumBytesEach` (so a hostile count cannot
    /// make the caller reserve memory the payload cannot fill).
    ///
    /// - Parameters:
    ///   - maximum: The largest count allowed.
    ///   - minimumBytesEach: The fewest bytes one element takes.
    package mutating func count(maximum: Int, minimumBytesEach: Int = 1) throws(CaptureFormatError) -> Int {
        let value = try uint64()
        guard value <= UInt64(maximum) else { throw .malformed("a count of \(value) is above \(maximum)") }
        guard value * UInt64(max(1, minimumBytesEach)) <= UInt64(remaining) else {
            throw .truncated("a count of \(value) runs past the record's end")
        }
        return Int(value)
    }

    /// A `Bool` byte (0 or 1).
    package mutating func bool() throws(CaptureFormatError) -> Bool {
        let byte = try fixed(UInt8.self)
        guard byte <= 1 else { throw .malformed("a flag is \(byte), not 0 or 1") }
        return byte == 1
    }

    /// A `Float` bit pattern.
    package mutating func float() throws(CaptureFormatError) -> Float { Float(bitPattern: try fixed(UInt32.self)) }

    /// A `Double` bit pattern.
    package mutating func double() throws(CaptureFormatError) -> Double { Double(bitPattern: try fixed(UInt64.self)) }

    /// A finite `Float` (what a game can have set: the engine refuses others).
    package mutating func finiteFloat() throws(CaptureFormatError) -> Float {
        let value = try float()
        guard value.isFinite else { throw .malformed("a value is not finite") }
        return value
    }

    /// A finite `Double`.
    package mutating func finiteDouble() throws(CaptureFormatError) -> Double {
        let value = try double()
        guard value.isFinite else { throw .malformed("a value is not finite") }
        return value
    }

    /// A UTF-8 string of at most `maximumBytes`.
    ///
    /// - Parameter maximumBytes: The longest string allowed.
    package mutating func string(maximumBytes: Int = 4096) throws(CaptureFormatError) -> String {
        let length = try count(maximum: maximumBytes)
        let slice = bytes[position..<(position + length)]
        position += length
        guard let string = String(validating: slice, as: UTF8.self) else { throw .malformed("a string is not UTF-8") }
        return string
    }

    /// Raw bytes of at most `maximum`.
    ///
    /// - Parameter maximum: The most bytes allowed.
    package mutating func bytes(maximum: Int) throws(CaptureFormatError) -> ArraySlice<UInt8> {
        let length = try count(maximum: maximum)
        defer { position += length }
        return bytes[position..<(position + length)]
    }

    /// An optional value written by ``CaptureEncoder/appendOptional(_:_:)``.
    ///
    /// - Parameter read: Reads a present value.
    package mutating func optional<T>(
        _ read: (inout CaptureDecoder) throws(CaptureFormatError) -> T
    ) throws(CaptureFormatError) -> T? {
        try bool() ? try read(&self) : nil
    }

    /// A fixed-width little-endian integer.
    ///
    /// - Parameter type: Its type.
    package mutating func fixed<T: FixedWidthInteger>(_ type: T.Type) throws(CaptureFormatError) -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw .truncated("a value runs past the record's end") }
        var value: T = 0
        for index in 0..<size { value |= T(bytes[position + index]) << (8 * index) }
        position += size
        return value
    }
}

/// Why a capture's bytes could not be read: they end too soon, or say
/// something no writer writes.
package enum CaptureFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    case truncated(String)
    case malformed(String)

    package var description: String {
        switch self {
        case .truncated(let reason), .malformed(let reason): reason
        }
    }
}
