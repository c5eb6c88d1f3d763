/// Where in a bank's JSON a check failed: filled by the parser's offsets
/// and the checks that name a path (`events.2.mode`), read by a reload to
/// report the line and column of a bad edit.
final class BankLocator {
    private var bytes: [UInt8] = []
    private var offsets: [String: Int] = [:]
    /// The line of the problem found (from 1), if one was located.
    private(set) var line: Int?
    /// Its column (from 1, in characters).
    private(set) var column: Int?

    /// Keeps the parsed file and where its values are.
    ///
    /// - Parameters:
    ///   - bytes: The bank's JSON.
    ///   - offsets: Each value's byte offset by path, from ``BankJSON/parseLocated(_:)``.
    func parsed(_ bytes: [UInt8], offsets: [String: Int]) {
        self.bytes = bytes
        self.offsets = offsets
    }

    /// Records a syntax error's place.
    ///
    /// - Parameters:
    ///   - line: Its line.
    ///   - column: Its column.
    func at(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// Records where `path` is: the value it names, or the nearest enclosing
    /// one the file has (`events.1.sounds[2]: loop` looks for
    /// `events.1.sounds.2.loop`, then `events.1.sounds.2`, and so on).
    ///
    /// - Parameter path: Dot-separated keys and indices; `[i]` and `: ` read as dots.
    func locate(_ path: String) {
        var normal = ""
        for c in path {
            switch c {
            case "[", ":": normal.append(".")
            case "]", " ": break
            default: normal.append(c)
            }
        }
        var parts = normal.split(separator: ".").map(String.init)
        while !parts.isEmpty {
            if let offset = offsets[parts.joined(separator: ".")] {
                (line, column) = BankJSON.position(of: offset, in: bytes)
                return
            }
            parts.removeLast()
        }
        (line, column) = (1, 1)
    }
}
