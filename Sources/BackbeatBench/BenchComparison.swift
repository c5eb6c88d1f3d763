import Foundation

/// Two benchmark reports figure by figure: each figure's change, and whether
/// that change is beyond the noise the rounds showed.
///
/// A change is noise when the two min–max ranges overlap, as benchstat calls a
/// change insignificant when the confidence intervals overlap: each range is
/// what the same code measured from round to round, so a new median inside
/// the old spread says nothing.
package struct BenchComparison: Sendable {
    /// One figure in both runs.
    package struct Row: Sendable, Equatable {
        /// `suite.key`.
        package let figure: String
        /// The old run's value, if it has the figure.
        package let old: Value?
        /// The new run's value, if it has the figure.
        package let new: Value?

        /// The relative change from old to new (nil when a side is missing or old is 0).
        package var change: Double? {
            guard let old, let new, old.median != 0 else { return nil }
            return (new.median - old.median) / abs(old.median)
        }

        /// What the change means.
        package var verdict: Verdict {
            guard let old else { return .onlyNew }
            guard let new else { return .onlyOld }
            guard let a = old.range, let b = new.range else { return old.median == new.median ? .same : .singleValue }
            return a.overlaps(b) ? .noise : .beyondNoise
        }
    }

    /// A figure's median and, when measured over rounds, its min–max range.
    package struct Value: Sendable, Equatable {
        /// The figure's value (the median of its rounds).
        package let median: Double
        /// The rounds' min...max, when the figure has `_min` and `_max` companions.
        package let range: ClosedRange<Double>?
    }

    /// What a change means.
    package enum Verdict: String, Sendable {
        /// The ranges overlap: within the run-to-run spread.
        case noise = "~ noise (ranges overlap)"
        /// The ranges do not overlap.
        case beyondNoise = "beyond noise"
        /// Measured once on a side, so no spread to judge by; the values differ.
        case singleValue = "one value, no spread"
        /// Measured once and equal.
        case same = "same"
        /// Only the old run has it.
        case onlyOld = "only in OLD"
        /// Only the new run has it.
        case onlyNew = "only in NEW"
    }

    /// The old run.
    package let old: BenchReport
    /// The new run.
    package let new: BenchReport
    /// Every figure either run has, by suite then key (companions fold into their figure).
    package let rows: [Row]

    /// Compares `old` with `new`.
    package init(old: BenchReport, new: BenchReport) {
        self.old = old
        self.new = new
        var rows: [Row] = []
        for suite in Set(old.suites.keys).union(new.suites.keys).sorted() {
            let a = old.suites[suite] ?? [:]
            let b = new.suites[suite] ?? [:]
            let keys = Set(a.keys).union(b.keys).filter { !Self.isCompanion($0, in: a) && !Self.isCompanion($0, in: b) }
            for key in keys.sorted() {
                rows.append(Row(figure: "\(suite).\(key)", old: Self.value(key, in: a), new: Self.value(key, in: b)))
            }
        }
        self.rows = rows
    }

    /// The comparison as a Markdown table, under one line per run naming what it was.
    package func table(oldName: String, newName: String) -> String {
        var lines = [
            "OLD: \(oldName): \(old.run.summary)",
            "NEW: \(newName): \(new.run.summary)",
            "",
            "| figure | OLD | NEW | change | verdict |",
            "|---|---:|---:|---:|---|",
        ]
        for row in rows {
            let change = row.change.map { abs($0) < 0.0005 ? "0.0%" : String(format: "%+.1f%%", $0 * 100) } ?? "–"
            lines.append(
                "| \(row.figure) | \(Self.format(row.old)) | \(Self.format(row.new)) | \(change) | \(row.verdict.rawValue) |"
            )
        }
        let counted = rows.filter { $0.verdict == .beyondNoise }.count
        lines.append("")
        lines.append(
            "\(counted) of \(rows.filter { $0.old?.range != nil && $0.new?.range != nil }.count) figures with a spread changed beyond noise."
        )
        return lines.joined(separator: "\n")
    }

    /// A key is a companion when it ends in `_min`/`_max` and its figure is there too.
    private static func isCompanion(_ key: String, in figures: [String: Double]) -> Bool {
        for suffix in ["_min", "_max"] where key.hasSuffix(suffix) {
            if figures[String(key.dropLast(suffix.count))] != nil { return true }
        }
        return false
    }

    private static func value(_ key: String, in figures: [String: Double]) -> Value? {
        guard let median = figures[key] else { return nil }
        guard let low = figures[key + "_min"], let high = figures[key + "_max"], low <= high else {
            return Value(median: median, range: nil)
        }
        return Value(median: median, range: low...high)
    }

    /// A number for the table: integers as such, else 1 or 3 decimals.
    package static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e9 { return String(Int(value)) }
        return String(format: abs(value) >= 100 ? "%.1f" : "%.3f", value)
    }

    private static func format(_ value: Value?) -> String {
        guard let value else { return "–" }
        guard let range = value.range else { return format(value.median) }
        return "\(format(value.median)) (\(format(range.lowerBound))–\(format(range.upperBound)))"
    }
}
