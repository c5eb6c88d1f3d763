/// Writes a small record's payload straight into the capture's block, for
/// the records a game makes many of a second (a play): the room was made
/// once for the whole payload, so each value is a few stores, with no
/// array to check for uniqueness or growth on every byte.
///
/// Each value is written exactly as ``CaptureEncoder`` writes it, so a
/// reader cannot tell which of the two wrote a record. Made only by
/// ``CaptureFileWriter/append(_:frame:maximumPayloadBytes:_:)``, which
/// promises it room for the payload it declared.
package struct CaptureRecordBytes {
    private let base: UnsafeMutablePointer<UInt8>
    private let limit: Int
    /// Bytes written so far.
    package private(set) var count = 0

    /// A writer over `limit` bytes from `base`.
    ///
    /// - Parameters:
    ///   - base: The first byte of the room.
    ///   - limit: How many bytes the room holds.
    init(base: UnsafeMutablePointer<UInt8>, limit: Int) {
        self.base = base
        self.limit = limit
    }

    /// One byte; past the declared room, a trap rather than a stray write.
    private mutating func put(_ byte: UInt8) {
        precondition(count < limit, "a capture record wrote past the \(limit) bytes it declared")
        base[count] = byte
        count += 1
    }

    /// An unsigned integer, 7 bits a byte (as ``CaptureEncoder/append(_:)-(UInt64)``).
    ///
    /// - Parameter value: The value to append.
    package mutating func append(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            put(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        put(UInt8(value))
    }

    /// A signed integer, zigzag-coded.
    ///
    /// - Parameter value: The value to append.
    package mutating func append(_ value: Int64) {
        append(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// An `Int`, zigzag-coded.
    ///
    /// - Parameter value: The value to append.
    package mutating func append(_ value: Int) { append(Int64(value)) }

    /// A `UInt32` as a varint.
    ///
    /// - Parameter value: The value to append.
    package mutating func append(_ value: UInt32) { append(UInt64(value)) }

    /// A `Bool` as one byte.
    ///
    /// - Parameter value: The value to append.
    package mutating func append(_ value: Bool) { put(value ? 1 : 0) }

    /// A `Float`'s bit pattern, 4 bytes, little-endian.
    ///
    /// - Parameter value: The value to append.
    package mutating func append(_ value: Float) {
        let bits = value.bitPattern
        for shift in stride(from: 0, to: 32, by: 8) { put(UInt8(truncatingIfNeeded: bits >> UInt32(shift))) }
    }

    /// One byte (a code or tag).
    ///
    /// - Parameter value: The value to append.
    package mutating func appendFixed(_ value: UInt8) { put(value) }
}
