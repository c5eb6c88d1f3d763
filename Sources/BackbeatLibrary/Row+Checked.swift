import BackbeatSupport
import GRDB

extension Row {
    /// The value at `index`, converted to `T`. GRDB's subscript traps on a
    /// value of another type or out of `T`'s range; the index is a file that
    /// another program may have written, so such a value is a typed error.
    ///
    /// - Throws: ``BackbeatError/Code/indexFailed`` naming the column, what it
    ///   holds and what was expected, in one line.
    func value<T: DatabaseValueConvertible>(at index: Int, as type: T.Type = T.self) throws -> T {
        do {
            return try decode(T.self, atIndex: index)
        } catch {
            let names = Array(columnNames)
            let column = names.indices.contains(index) ? names[index] : "#\(index)"
            let held: String =
                switch (names.indices.contains(index) ? self[index] as DatabaseValue : .null).storage {
                case .null: "NULL"
                case .int64(let n): "the integer \(n)"
                case .double(let d): "the real \(d)"
                case .string: "text"
                case .blob(let data): "a blob of \(data.count) bytes"
                }
            throw BackbeatError(
                .indexFailed, operation: "read the library index",
                reason: "column \(column) holds \(held) where \(T.self) belongs")
        }
    }
}
