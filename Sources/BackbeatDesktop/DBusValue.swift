import BackbeatEngine

/// One D-Bus value, decoded into Swift: no pointer outlives the message it came from.
///
/// Accessors are lenient about the wire type (any integer reads as `int64`) and
/// return nil for anything malformed, so a hostile or sloppy peer yields a
/// missing field, never a crash.
indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// An array of values of one type; `element` is that type's signature.
    case array(element: String, [DBusValue])
    /// A key-value pair, the element of a dictionary (`a{..}`).
    case dictEntry(DBusValue, DBusValue)
    case structure([DBusValue])
    case variant(DBusValue)
    /// A type Backbeat does not read (a file descriptor), by its type code.
    case unsupported(Int32)

    /// The value's type signature.
    var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .array(let element, _): "a" + element
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        case .unsupported(let code): String(UnicodeScalar(UInt8(truncatingIfNeeded: code)))
        }
    }

    // MARK: Building

    /// An `a{sv}` dictionary, keys sorted so messages are reproducible.
    static func dictionary(_ entries: [String: DBusValue]) -> DBusValue {
        .array(
            element: "{sv}", entries.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .variant($0.value)) })
    }

    /// An `as` array.
    static func strings(_ values: [String]) -> DBusValue {
        .array(element: "s", values.map { .string($0) })
    }

    // MARK: Reading

    /// The value inside any number of variants.
    var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// A string or object path.
    var string: String? {
        switch unwrapped {
        case .string(let s), .objectPath(let s): s
        default: nil
        }
    }

    var bool: Bool? {
        if case .bool(let b) = unwrapped { return b }
        return nil
    }

    /// Any integer, or a double with an integral value in range.
    var int64: Int64? {
        switch unwrapped {
        case .byte(let v): Int64(v)
        case .int16(let v): Int64(v)
        case .uint16(let v): Int64(v)
        case .int32(let v): Int64(v)
        case .uint32(let v): Int64(v)
        case .int64(let v): v
        case .uint64(let v): Int64(exactly: v)
        case .double(let v): v.isFinite ? Int64(exactly: v.rounded()) : nil
        default: nil
        }
    }

    /// Any number, finite.
    var double: Double? {
        if case .double(let v) = unwrapped { return v.isFinite ? v : nil }
        return int64.map(Double.init)
    }

    /// An array of strings; a single string reads as a one-element array
    /// (players disagree on `xesam:artist`). Non-string elements are dropped.
    var strings: [String]? {
        switch unwrapped {
        case .string(let s): [s]
        case .array(_, let values): values.compactMap(\.string)
        default: nil
        }
    }

    /// A dictionary with string keys, values unwrapped from their variants.
    /// Entries with other keys are dropped; nil if this is not a dictionary.
    var dictionary: [String: DBusValue]? {
        guard case .array(let element, let entries) = unwrapped, element.hasPrefix("{") else { return nil }
        var result: [String: DBusValue] = [:]
        for case .dictEntry(let key, let value) in entries {
            if let key = key.string { result[key] = value.unwrapped }
        }
        return result
    }
}
