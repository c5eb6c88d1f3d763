/// Writes the server's JSON lines by hand into one byte array: a snapshot of
/// 256 voices costs several times less than through `JSONEncoder` (see
/// `TelemetrySnapshot+JSON.swift`). Keys are the types' Codable names, and
/// nil is written as `null`, so `JSONDecoder` reads every line back into an
/// equal value.
///
/// It is a `TextOutputStream` only so that numbers write themselves into it
/// from the stack (``_writeASCII(_:)``), with no `String` made per number.
struct TelemetryJSONWriter: TextOutputStream {
    /// The line so far.
    private(set) var bytes: [UInt8] = []

    /// A writer whose array holds `capacity` bytes before it grows.
    ///
    /// - Parameter capacity: the expected length of the line.
    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// A writer that writes into `buffer`'s storage, emptied (a line written
    /// before, taken back with ``takeBytes()``): when nothing else holds that
    /// storage any more, the line costs no allocation.
    ///
    /// - Parameters:
    ///   - buffer: the array to reuse; left empty.
    ///   - capacity: the expected length of the line.
    init(reusing buffer: inout [UInt8], capacity: Int) {
        swap(&bytes, &buffer)
        bytes.removeAll(keepingCapacity: true)
        bytes.reserveCapacity(capacity)
    }

    /// The line written, leaving the writer empty.
    mutating func takeBytes() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &bytes)
        return taken
    }

    /// Opens an object (`{`), after a comma if a value came before it.
    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
    }

    mutating func endObject() { bytes.append(UInt8(ascii: "}")) }

    /// Opens an array (`[`), after a comma if a value came before it.
    mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
    }

    mutating func endArray() { bytes.append(UInt8(ascii: "]")) }

    /// Writes `"name":`, after a comma unless it opens its object.
    ///
    /// - Parameter name: the key, plain ASCII.
    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        // The value follows the colon with no comma.
        pendingValue = true
    }

    /// Writes a string value, escaped as JSON requires.
    ///
    /// - Parameter value: the string.
    mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
                case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
                default:
                    append("u00")
                    let hex: StaticString = "0123456789abcdef"
                    hex.withUTF8Buffer { digits in
                        bytes.append(digits[Int(byte >> 4)])
                        bytes.append(digits[Int(byte & 0xF)])
                    }
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes a number. JSON has no infinity or NaN: NaN is written as 0
    /// and an infinity as the largest finite number of its sign, so that
    /// the line stays valid and decodes.
    ///
    /// - Parameter value: the number.
    mutating func number(_ value: Double) {
        separate()
        let finite =
            value.isNaN
            ? 0 : value.isInfinite ? (value < 0 ? -Double.greatestFiniteMagnitude : .greatestFiniteMagnitude) : value
        // Through `_writeASCII(_:)`: the same digits as `description`, from a buffer on the stack.
        finite.write(to: &self)
    }

    /// Writes a whole number.
    ///
    /// - Parameter value: the number.
    mutating func integer(_ value: some BinaryInteger) {
        separate()
        // Digit by digit into the line: `description` made a string each time.
        if let magnitude = UInt64(exactly: value) {
            digits(of: magnitude)
        } else if let negative = Int64(exactly: value) {
            bytes.append(UInt8(ascii: "-"))
            digits(of: negative.magnitude)
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
    }

    /// Appends `value` in decimal, as `description` writes it.
    ///
    /// - Parameter value: the number.
    private mutating func digits(of value: UInt64) {
        // Lowest digit first, from the end of a buffer on the stack (20
        // digits hold any UInt64). Reversing them in the line through a
        // slice of it copied the slice: an allocation per number.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var start = buffer.count
            var rest = value
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// Writes `true` or `false`.
    ///
    /// - Parameter value: the flag.
    mutating func bool(_ value: Bool) {
        separate()
        append(value ? "true" : "false")
    }

    mutating func null() {
        separate()
        append("null")
    }

    /// Writes a string, or `null` for nil.
    ///
    /// - Parameter value: the string or nil.
    mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    /// Writes `[x, y, z]`-like arrays of numbers, or `null` for nil.
    ///
    /// - Parameter values: the numbers or nil.
    mutating func numbers(_ values: [Double]?) {
        guard let values else { return null() }
        beginArray()
        for value in values { number(value) }
        endArray()
    }

    // MARK: Fields: a key and its value, in one call

    /// Writes `"name":` and a string (escaped), or `null` for nil.
    ///
    /// - Parameters:
    ///   - name: the key, plain ASCII.
    ///   - value: the string or nil.
    mutating func field(_ name: StaticString, _ value: String?) {
        key(name)
        string(value)
    }

    /// Writes `"name":` and a number (NaN and infinities as ``number(_:)`` writes them).
    ///
    /// - Parameters:
    ///   - name: the key, plain ASCII.
    ///   - value: the number.
    mutating func field(_ name: StaticString, _ value: Double) {
        key(name)
        number(value)
    }

    /// Writes `"name":` and a whole number, or `null` for nil.
    ///
    /// - Parameters:
    ///   - name: the key, plain ASCII.
    ///   - value: the number or nil.
    mutating func field(_ name: StaticString, _ value: (some BinaryInteger)?) {
        key(name)
        if let value { integer(value) } else { null() }
    }

    /// Writes `"name":` and `true` or `false`.
    ///
    /// - Parameters:
    ///   - name: the key, plain ASCII.
    ///   - value: the flag.
    mutating func field(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }

    /// Writes `"name":` and an array of numbers, or `null` for nil.
    ///
    /// - Parameters:
    ///   - name: the key, plain ASCII.
    ///   - values: the numbers or nil.
    mutating func field(_ name: StaticString, _ values: [Double]?) {
        key(name)
        numbers(values)
    }

    // MARK: TextOutputStream: how numbers write themselves

    /// Appends text as it is (`TextOutputStream`).
    ///
    /// - Parameter string: the text.
    mutating func write(_ string: String) {
        bytes.append(contentsOf: string.utf8)
    }

    /// Appends ASCII bytes as they are: the standard library writes a
    /// number's digits through this, from its own stack buffer.
    ///
    /// - Parameter buffer: the bytes.
    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: buffer)
    }

    /// Appends ASCII text as it is.
    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Ends the line with `\n`.
    mutating func endLine() { bytes.append(UInt8(ascii: "\n")) }

    /// Writes a value already encoded (one written by this writer before,
    /// without its separating comma), after a comma if one is due.
    ///
    /// - Parameter encoded: the value's bytes.
    mutating func encodedValue(_ encoded: UnsafeRawBufferPointer) {
        separate()
        bytes.append(contentsOf: encoded)
    }

    /// Where the value written since `start` (a count of ``bytes`` taken
    /// before writing it) begins and ends, leaving out its separating comma.
    ///
    /// - Parameter start: ``bytes``' count before the value was written.
    func valueRange(since start: Int) -> Range<Int> {
        start < bytes.count && bytes[start] == UInt8(ascii: ",") ? start + 1..<bytes.count : start..<bytes.count
    }

    /// Whether a key was just written, so that its value takes no comma.
    private var pendingValue = false

    /// A comma before this value unless it is the first in its object or
    /// array, or the value of the key just written.
    private mutating func separate() {
        if pendingValue {
            pendingValue = false
            return
        }
        guard let last = bytes.last, last != UInt8(ascii: "{"), last != UInt8(ascii: "[") else { return }
        bytes.append(UInt8(ascii: ","))
    }
}
