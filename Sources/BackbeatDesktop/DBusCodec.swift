import CDBus

/// Turns libdbus messages into ``DBusMessage`` values and back. The only code,
/// with ``DBusConnection``, that touches libdbus pointers.
enum DBusCodec {
    /// Type codes (libdbus defines them as casts Swift does not import).
    enum TypeCode {
        static let invalid: Int32 = 0
        static let byte = code("y"), bool = code("b"), int16 = code("n"), uint16 = code("q")
        static let int32 = code("i"), uint32 = code("u"), int64 = code("x"), uint64 = code("t")
        static let double = code("d"), string = code("s"), objectPath = code("o"), signature = code("g")
        static let array = code("a"), variant = code("v"), structure = code("r"), dictEntry = code("e")

        private static func code(_ c: Unicode.Scalar) -> Int32 { Int32(c.value) }
    }

    /// Nesting deeper than libdbus itself allows is not read.
    static let maximumDepth = 64

    // MARK: Decoding

    static func decode(_ message: OpaquePointer) -> DBusMessage {
        let kind: DBusMessage.Kind =
            switch dbus_message_get_type(message) {
            case DBUS_MESSAGE_TYPE_METHOD_CALL: .methodCall
            case DBUS_MESSAGE_TYPE_METHOD_RETURN: .methodReturn
            case DBUS_MESSAGE_TYPE_ERROR: .error
            case DBUS_MESSAGE_TYPE_SIGNAL: .signal
            default: .other
            }
        var result = DBusMessage(kind: kind)
        result.serial = dbus_message_get_serial(message)
        result.sender = text(dbus_message_get_sender(message))
        result.destination = text(dbus_message_get_destination(message))
        result.path = text(dbus_message_get_path(message))
        result.interface = text(dbus_message_get_interface(message))
        result.member = text(dbus_message_get_member(message))
        result.errorName = text(dbus_message_get_error_name(message))
        var iter = DBusMessageIter()
        if dbus_message_iter_init(message, &iter) != 0 {
            result.body = readAll(&iter, depth: 0)
        }
        return result
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private static func readAll(_ iter: inout DBusMessageIter, depth: Int) -> [DBusValue] {
        var values: [DBusValue] = []
        while true {
            let type = dbus_message_iter_get_arg_type(&iter)
            if type == TypeCode.invalid { break }
            values.append(readOne(&iter, type: type, depth: depth))
            if dbus_message_iter_next(&iter) == 0 { break }
        }
        return values
    }

    private static func basic<T>(_ iter: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iter, UnsafeMutableRawPointer($0)) }
        return value
    }

    private static func readOne(_ iter: inout DBusMessageIter, type: Int32, depth: Int) -> DBusValue {
        switch type {
        case TypeCode.byte: return .byte(basic(&iter, UInt8(0)))
        case TypeCode.bool: return .bool(basic(&iter, dbus_bool_t(0)) != 0)
        case TypeCode.int16: return .int16(basic(&iter, Int16(0)))
        case TypeCode.uint16: return .uint16(basic(&iter, UInt16(0)))
        case TypeCode.int32: return .int32(basic(&iter, Int32(0)))
        case TypeCode.uint32: return .uint32(basic(&iter, UInt32(0)))
        case TypeCode.int64: return .int64(basic(&iter, Int64(0)))
        case TypeCode.uint64: return .uint64(basic(&iter, UInt64(0)))
        case TypeCode.double: return .double(basic(&iter, Double(0)))
        case TypeCode.string, TypeCode.objectPath, TypeCode.signature:
            let pointer = basic(&iter, UnsafePointer<CChar>?.none)
            let s = pointer.map { String(cString: $0) } ?? ""
            return type == TypeCode.string ? .string(s) : type == TypeCode.objectPath ? .objectPath(s) : .signature(s)
        case TypeCode.array, TypeCode.variant, TypeCode.structure, TypeCode.dictEntry:
            guard depth < maximumDepth else { return .unsupported(type) }
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            switch type {
            case TypeCode.array:
                var element = ""
                if let signature = dbus_message_iter_get_signature(&iter) {
                    element = String(String(cString: signature).dropFirst())
                    dbus_free(signature)
                }
                // An empty array's iterator reports no element; only read when there is one.
                let values =
                    dbus_message_iter_get_arg_type(&sub) == TypeCode.invalid ? [] : readAll(&sub, depth: depth + 1)
                return .array(element: element, values)
            case TypeCode.variant:
                return readAll(&sub, depth: depth + 1).first.map { .variant($0) } ?? .unsupported(type)
            case TypeCode.dictEntry:
                let pair = readAll(&sub, depth: depth + 1)
                guard pair.count == 2 else { return .unsupported(type) }
                return .dictEntry(pair[0], pair[1])
            default:
                return .structure(readAll(&sub, depth: depth + 1))
            }
        default:
            return .unsupported(type)
        }
    }

    // MARK: Encoding

    /// Appends `values` to `message`; false if one is not well-formed (an array
    /// element of the wrong type, an invalid object path or signature), which
    /// libdbus would otherwise treat as a fatal programming error.
    static func append(_ values: [DBusValue], to message: OpaquePointer) -> Bool {
        guard values.allSatisfy(isWellFormed) else { return false }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        return values.allSatisfy { append($0, to: &iter) }
    }

    static func isValidSignature(_ signature: String) -> Bool {
        dbus_signature_validate_single(signature, nil) != 0
    }

    private static func isWellFormed(_ value: DBusValue) -> Bool {
        switch value {
        case .objectPath(let path): return dbus_validate_path(path, nil) != 0
        case .signature(let s): return dbus_signature_validate(s, nil) != 0
        case .array(let element, let values):
            return isValidSignature("a" + element) && values.allSatisfy { $0.signature == element && isWellFormed($0) }
        case .dictEntry(let key, let value):
            return key.signature.count == 1 && "ybnqiuxtdsog".contains(key.signature) && isWellFormed(key)
                && isWellFormed(value)
        case .structure(let fields): return !fields.isEmpty && fields.allSatisfy(isWellFormed)
        case .variant(let inner): return isWellFormed(inner)
        case .unsupported: return false
        default: return true
        }
    }

    private static func appendBasic<T>(_ iter: inout DBusMessageIter, _ type: Int32, _ value: T) -> Bool {
        var value = value
        return withUnsafePointer(to: &value) { dbus_message_iter_append_basic(&iter, type, UnsafeRawPointer($0)) } != 0
    }

    private static func appendString(_ iter: inout DBusMessageIter, _ type: Int32, _ s: String) -> Bool {
        s.withCString { pointer in appendBasic(&iter, type, pointer) }
    }

    private static func append(_ value: DBusValue, to iter: inout DBusMessageIter) -> Bool {
        switch value {
        case .byte(let v): return appendBasic(&iter, TypeCode.byte, v)
        case .bool(let v): return appendBasic(&iter, TypeCode.bool, dbus_bool_t(v ? 1 : 0))
        case .int16(let v): return appendBasic(&iter, TypeCode.int16, v)
        case .uint16(let v): return appendBasic(&iter, TypeCode.uint16, v)
        case .int32(let v): return appendBasic(&iter, TypeCode.int32, v)
        case .uint32(let v): return appendBasic(&iter, TypeCode.uint32, v)
        case .int64(let v): return appendBasic(&iter, TypeCode.int64, v)
        case .uint64(let v): return appendBasic(&iter, TypeCode.uint64, v)
        case .double(let v): return appendBasic(&iter, TypeCode.double, v)
        case .string(let s): return appendString(&iter, TypeCode.string, s)
        case .objectPath(let s): return appendString(&iter, TypeCode.objectPath, s)
        case .signature(let s): return appendString(&iter, TypeCode.signature, s)
        case .array(let element, let values):
            return container(&iter, TypeCode.array, element) { sub in values.allSatisfy { append($0, to: &sub) } }
        case .dictEntry(let key, let value):
            return container(&iter, TypeCode.dictEntry, nil) { sub in append(key, to: &sub) && append(value, to: &sub) }
        case .structure(let fields):
            return container(&iter, TypeCode.structure, nil) { sub in fields.allSatisfy { append($0, to: &sub) } }
        case .variant(let inner):
            return container(&iter, TypeCode.variant, inner.signature) { sub in append(inner, to: &sub) }
        case .unsupported:
            return false
        }
    }

    private static func container(
        _ iter: inout DBusMessageIter, _ type: Int32, _ signature: String?,
        _ body: (inout DBusMessageIter) -> Bool
    ) -> Bool {
        var sub = DBusMessageIter()
        let opened: Bool =
            if let signature {
                signature.withCString { dbus_message_iter_open_container(&iter, type, $0, &sub) } != 0
            } else {
                dbus_message_iter_open_container(&iter, type, nil, &sub) != 0
            }
        guard opened else { return false }
        guard body(&sub) else {
            dbus_message_iter_abandon_container(&iter, &sub)
            return false
        }
        return dbus_message_iter_close_container(&iter, &sub) != 0
    }
}
