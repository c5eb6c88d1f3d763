extension BankDefinition {
    /// `; did you mean "pitchCents"?` for a misspelt `key`, naming the known key it is
    /// nearest to, or "" when none is near: the hint the command line gives for a flag.
    ///
    /// Nearness is the edit distance from `key` to the start of a known key, so a
    /// key cut short (`pich`, `volume`) finds its whole name; it must be at most a
    /// third of the key's length (at least 1), or the hint would only guess.
    ///
    /// - Parameters:
    ///   - key: The unknown key, as written.
    ///   - known: The keys allowed where it was found.
    static func suggestion(for key: String, among known: some Sequence<String>) -> String {
        let typed = Array(key.lowercased())
        guard !typed.isEmpty else { return "" }
        var best: (distance: Int, whole: Int, key: String)?
        for candidate in known {
            let target = Array(candidate.lowercased())
            let rows = editDistances(typed, target)
            // Against each prefix of the candidate at least as long as the typed key less two.
            let shortest = max(1, typed.count - 2)
            guard shortest <= target.count else { continue }
            let distance = rows[shortest...].min() ?? .max
            let entry = (distance, rows[target.count], candidate)
            if best.map({ (entry.0, entry.1, entry.2) < ($0.distance, $0.whole, $0.key) }) ?? true { best = entry }
        }
        guard let best, best.distance <= max(1, typed.count / 3) else { return "" }
        return "; did you mean \"\(best.key)\"?"
    }

    /// The Levenshtein distance from `a` to each prefix of `b` (index: the prefix's length).
    private static func editDistances(_ a: [Character], _ b: [Character]) -> [Int] {
        // previous[j]: distance from a's first i-1 characters to b's first j.
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
            }
            previous = current
        }
        return previous
    }
}
