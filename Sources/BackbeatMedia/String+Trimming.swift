extension String {
    /// The string without leading and trailing whitespace and newlines
    /// (`trimmingCharacters(in: .whitespacesAndNewlines)`, which
    /// FoundationEssentials does not have).
    func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
