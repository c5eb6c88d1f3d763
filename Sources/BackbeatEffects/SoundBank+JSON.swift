import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A parsed JSON value (the bank is read into these, then checked field by field).
enum BankJSON {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([BankJSON])
    case object([String: BankJSON])

    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// A JSON syntax error: what, and the line and column where it was found.
    struct SyntaxError: Error {
        let message: String
        let line: Int
        let column: Int
        var description: String { "\(message) at line \(line), column \(column)" }
    }

    /// Parses strict JSON (RFC 8259): the platform decoder does not say where
    /// a file goes wrong, and a sound designer needs the line. Nesting is
    /// bounded, and so is everything else by the input's size.
    static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> BankJSON {
        try parseLocated(bytes).value
    }

    /// Parses as ``parse(_:)`` and says where each value is: the byte offset
    /// of each object member's key and each array element, by its path
    /// (`events.2.sounds.0`), so a check can name the line of what it refuses.
    static func parseLocated(_ bytes: [UInt8]) throws(SyntaxError) -> (value: BankJSON, offsets: [String: Int]) {
        var parser = Parser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.error("unexpected text after the end") }
        return (value, parser.offsets)
    }

    /// The line and column (both from 1; a column counts characters) of byte `offset` in `bytes`.
    static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for b in bytes[..<min(max(0, offset), bytes.count)] {
            if b == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        /// Where the value being read sits: keys and element indices.
        var path: [String] = []
        var offsets: [String: Int] = [:]

        init(bytes: [UInt8]) { self.bytes = bytes }

        func error(_ message: String) -> SyntaxError {
            let (line, column) = BankJSON.position(of: index, in: bytes)
            return SyntaxError(message: message, line: line, column: column)
        }

        mutating func mark(_ component: String, at offset: Int) {
            path.append(component)
            offsets[path.joined(separator: ".")] = offset
        }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let b = peek, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { index += 1 }
        }

        mutating func expect(_ literal: String, _ value: BankJSON) throws(SyntaxError) -> BankJSON {
            for b in literal.utf8 {
                guard peek == b else { throw error("unexpected character in \"\(literal)\"") }
                index += 1
            }
            return value
        }

        mutating func value(depth: Int) throws(SyntaxError) -> BankJSON {
            guard depth < 64 else { throw error("nested more than 64 deep") }
            guard let b = peek else { throw error("unexpected end of file") }
            switch b {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try expect("true", .bool(true))
            case UInt8(ascii: "f"): return try expect("false", .bool(false))
            case UInt8(ascii: "n"): return try expect("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw error("unexpected character \"\(Character(Unicode.Scalar(b)))\"")
            }
        }

        mutating func object(depth: Int) throws(SyntaxError) -> BankJSON {
            index += 1
            var fields: [String: BankJSON] = [:]
            skipSpace()
            if peek == UInt8(ascii: "}") {
                index += 1
                return .object(fields)
            }
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\"") else { throw error("expected a key in quotes") }
                let keyStart = index
                let key = try string()
                guard fields[key] == nil else {
                    index = keyStart
                    throw error("duplicate key \"\(key)\"")
                }
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
                index += 1
                skipSpace()
                mark(key, at: keyStart)
                fields[key] = try value(depth: depth + 1)
                path.removeLast()
                skipSpace()
                if peek == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if peek == UInt8(ascii: "}") {
                    index += 1
                    return .object(fields)
                }
                throw error("expected ',' or '}'")
            }
        }

        mutating func array(depth: Int) throws(SyntaxError) -> BankJSON {
            index += 1
            var items: [BankJSON] = []
            skipSpace()
            if peek == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                skipSpace()
                mark(String(items.count), at: index)
                items.append(try value(depth: depth + 1))
                path.removeLast()
                skipSpace()
                if peek == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if peek == UInt8(ascii: "]") {
                    index += 1
                    return .array(items)
                }
                throw error("expected ',' or ']'")
            }
        }

        mutating func number() throws(SyntaxError) -> BankJSON {
            let start = index
            if peek == UInt8(ascii: "-") { index += 1 }
            func digits(_ p: inout Parser) -> Int {
                var n = 0
                while let b = p.peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) {
                    p.index += 1
                    n += 1
                }
                return n
            }
            guard digits(&self) > 0 else { throw error("bad number") }
            if peek == UInt8(ascii: ".") {
                index += 1
                guard digits(&self) > 0 else { throw error("bad number") }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                guard digits(&self) > 0 else { throw error("bad number") }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let n = Double(text), n.isFinite else {
                index = start
                throw error("number \(text) is out of range")
            }
            return .number(n)
        }

        mutating func string() throws(SyntaxError) -> String {
            index += 1
            var out: [UInt8] = []
            while true {
                guard let b = peek else { throw error("unterminated string") }
                index += 1
                switch b {
                case UInt8(ascii: "\""):
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let e = peek else { throw error("unterminated string") }
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "u"):
                        guard index + 4 <= bytes.count,
                            let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
                        else { throw error("bad \\u escape") }
                        index += 4
                        // Lone surrogates become U+FFFD; a bank's names and paths do not need pairs.
                        let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                        out += Array(String(Character(scalar)).utf8)
                    default:
                        index -= 1
                        throw error("bad escape")
                    }
                case 0..<0x20:
                    index -= 1
                    throw error("control character in a string")
                default:
                    out.append(b)
                }
            }
        }
    }
}
