/// Writes a capture record's payload: varints, fixed-width floats, strings.
///
/// Floats and doubles are stored as their bit patterns, so a replay gets
/// back exactly the values the game passed.
package struct CaptureEncoder: Sendable {
    package private(set) var bytes: [UInt8] = []

    package init() { bytes.reserveCapacity(64) }

    /// Forgets what was written, keeping the storage.
    package mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    /// An unsigned integer, 7 bits a byte.
    ///
    /// - Parameter value: The value to append.
    package mutating func append(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// A signed integer, zigzag-coded so small negative numbers stay short.
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
    package mutating func append(_ value: Bool) { bytes.append(value ? 1 : 0) }

    /// A `Float`'s bit pattern, 4 bytes.
    ///
    /// - Parameter value: The value to append.
    package mutating func append(_ value: Float) { appendFixed(value.bitPattern) }

    /// A `Double`'s bit pattern, 8 bytes.
    ///
    /// - Parameter value: The value to append.
    package mutating func append(_ value: Double) { appendFixed(value.bitPattern) }

    /// A string: its UTF-8 length, then its bytes.
    ///
    /// - Parameter value: The value to append.
    package mutating func append(_ value: String) {
        let utf8 = value.utf8
        append(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// Raw bytes with their length first.
    ///
    /// - Parameter data: The bytes to append.
    package mutating func append(bytes data: some Collection<UInt8>) {
        append(UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    /// Up to `maximumBytes` bytes that `body` writes straight into the
    /// storage, for a loop that would otherwise append one byte at a time
    /// (a move batch of thousands of coordinates): the room is made once,
    /// and what `body` leaves unused is dropped.
    ///
    /// - Parameters:
    ///   - maximumBytes: The most `body` may write (nothing is called when it is 0).
    ///   - body: Writes from the pointer it is given and returns how many bytes it wrote.
    package mutating func appendUnsafe(maximumBytes: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        guard maximumBytes > 0 else { return }
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: maximumBytes))
        let written = bytes.withUnsafeMutableBufferPointer { body($0.baseAddress! + start) }
        precondition((0...maximumBytes).contains(written), "wrote \(written) bytes into room for \(maximumBytes)")
        bytes.removeLast(maximumBytes - written)
    }

    /// An optional value: a presence byte, then the value.
    ///
    /// - Parameters:
    ///   - value: The value, or nil.
    ///   - write: Appends a present value.
    package mutating func appendOptional<T>(_ value: T?, _ write: (inout CaptureEncoder, T) -> Void) {
        append(value != nil)
        if let value { write(&self, value) }
    }

    /// One byte (a code or tag), without the generic path's cost in a
    /// module that cannot specialize it.
    ///
    /// - Parameter value: The value to append.
    package mutating func appendFixed(_ value: UInt8) { bytes.append(value) }

    /// A fixed-width integer, little-endian.
    ///
    /// - Parameter value: The value to append.
    package mutating func appendFixed<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
