import BackbeatSupport
import GRDB

/// A condition on one property of an item, for ``MediaQuery``.
///
/// Text comparisons are case- and diacritic-insensitive: `"beyonce"` is equal
/// to `"Beyoncé"`, and `contains` looks for the folded value anywhere in the
/// folded property. Numbers, booleans, media types and persistent IDs compare
/// with `equalTo` only (a media-type predicate matches items of any of the types given).
public struct MediaPropertyPredicate: Hashable, Sendable, CustomStringConvertible {
    /// How the value is compared.
    public enum Comparison: String, Hashable, Sendable {
        /// The whole property equals the value.
        case equalTo
        /// The property contains the value (text properties only).
        case contains
    }

    enum Value: Hashable, Sendable {
        case text(String)
        case integer(Int64)
        case bool(Bool)
        case mediaType(MediaType)
    }

    /// The property compared.
    public let property: MediaItemProperty
    /// How it is compared.
    public let comparison: Comparison
    let value: Value

    /// A predicate on a text property (title, artist, albumTitle, albumArtist, genre, composer).
    ///
    /// - Parameters:
    ///   - value: The text to match.
    ///   - property: The property to test.
    ///   - comparison: Equality, or containment for text.
    public init(value: String, property: MediaItemProperty, comparison: Comparison = .equalTo) {
        self.init(.text(value), property, comparison)
    }

    /// A predicate on a number (albumTrackNumber, discNumber).
    ///
    /// - Parameters:
    ///   - value: The number to match.
    ///   - property: The property to test.
    ///   - comparison: Equality, or containment for text.
    public init(value: Int, property: MediaItemProperty, comparison: Comparison = .equalTo) {
        self.init(.integer(Int64(value)), property, comparison)
    }

    /// A predicate on a persistent ID.
    ///
    /// - Parameters:
    ///   - value: The persistent ID to match.
    ///   - property: The property to test.
    ///   - comparison: Equality, or containment for text.
    public init(value: UInt64, property: MediaItemProperty, comparison: Comparison = .equalTo) {
        self.init(.integer(Int64(bitPattern: value)), property, comparison)
    }

    /// A predicate on a flag (isCompilation).
    ///
    /// - Parameters:
    ///   - value: The flag to match.
    ///   - property: The property to test.
    ///   - comparison: Equality, or containment for text.
    public init(value: Bool, property: MediaItemProperty, comparison: Comparison = .equalTo) {
        self.init(.bool(value), property, comparison)
    }

    /// A predicate on the media type: matches items of any of the types in `value`.
    ///
    /// - Parameters:
    ///   - value: The types to match; an item of any of them matches.
    ///   - property: The property to test.
    ///   - comparison: Equality, or containment for text.
    public init(value: MediaType, property: MediaItemProperty = .mediaType, comparison: Comparison = .equalTo) {
        self.init(.mediaType(value), property, comparison)
    }

    private init(_ value: Value, _ property: MediaItemProperty, _ comparison: Comparison) {
        self.value = value
        self.property = property
        self.comparison = comparison
    }

    public var description: String {
        let shown =
            switch value {
            case .text(let s): "\"\(s)\""
            case .integer(let n): property == .persistentID ? String(UInt64(bitPattern: n)) : String(n)
            case .bool(let b): String(b)
            case .mediaType(let t): t.name
            }
        return "\(property) \(comparison.rawValue) \(shown)"
    }

    /// The SQL condition on the items table aliased `table`, and its argument;
    /// throws when the predicate cannot apply.
    func sqlCondition(table: String = "i") throws -> (sql: String, argument: DatabaseValue) {
        guard let column = property.filterColumn else {
            throw BackbeatError(
                .nonFilterableProperty, operation: "add predicate", reason: "\(property) cannot be filtered")
        }
        func mismatch(_ wanted: String) -> BackbeatError {
            BackbeatError(
                .predicateTypeMismatch, operation: "add predicate", reason: "\(self): \(property) compares \(wanted)")
        }
        switch (value, comparison) {
        case (.text(let text), _) where property.isText:
            let folded = TextFolding.fold(text)
            return comparison == .equalTo
                ? ("\(table).\(column) = ?", folded.databaseValue)
                : ("instr(\(table).\(column), ?) > 0", folded.databaseValue)
        case (_, .contains):
            throw mismatch("with equalTo only")
        case (.integer(let n), .equalTo) where [.albumTrackNumber, .discNumber, .persistentID].contains(property):
            return ("\(table).\(column) = ?", n.databaseValue)
        case (.bool(let b), .equalTo) where property == .isCompilation:
            return ("\(table).\(column) = ?", (b ? 1 : 0).databaseValue)
        case (.mediaType(let t), .equalTo) where property == .mediaType:
            return ("(\(table).\(column) & ?) != 0", Int64(t.rawValue).databaseValue)
        default:
            throw mismatch(
                property.isText
                    ? "text"
                    : property == .isCompilation
                        ? "a Bool"
                        : property == .mediaType ? "a MediaType" : "a number")
        }
    }
}
