import Foundation

/// Text keys for matching and ordering: case- and diacritic-insensitive
/// (`"Beyoncé"` matches `"beyonce"`), and for ordering the iPod's rule that a
/// leading "The", "A" or "An" is ignored.
enum TextFolding {
    /// Lowercased, without diacritics, width-folded. Used for `equalTo` and `contains`.
    static func fold(_ text: String) -> String {
        // Fast path: plain ASCII needs only lowercasing.
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    /// The key an item sorts by: folded, with a leading article dropped.
    static func sortKey(_ text: String?) -> String {
        guard let text else { return "" }
        var folded = fold(text.trimmingCharacters(in: .whitespaces))
        for article in ["the ", "a ", "an "] where folded.hasPrefix(article) && folded.count > article.count {
            folded.removeFirst(article.count)
            break
        }
        return folded
    }

    /// The section title for a sort key: an uppercase letter, or `#` for anything else.
    static func sectionTitle(forSortKey key: String) -> String {
        guard let first = key.unicodeScalars.first, first.isASCII, CharacterSet.letters.contains(first) else {
            return "#"
        }
        return String(first).uppercased()
    }
}
