/// Interleaved rounds: the one way every suite measures Backbeat against its
/// reference, so that drift on a shared machine (another build starting, the
/// CPU clocking down) hits both sides.
///
/// Each round runs every side once, back to back; odd rounds run them in
/// reverse (Backbeat, reference; reference, Backbeat; Backbeat, reference...),
/// so neither side always goes first. Figures are taken per round (a ratio
/// from the same round's two sides) and reported as the median of the
/// rounds with their min and max (``Figure/init(key:rounds:unit:)``).
package enum Rounds {
    /// Runs `rounds` rounds over `sides` (Backbeat first), alternating the
    /// order; returns each side's values, one per round, in round order.
    /// `log` gets the round number (from 1) and that round's values, in `sides` order.
    package static func interleaved(
        _ rounds: Int, sides: [() throws -> Double],
        log: (Int, [Double]) -> Void = { _, _ in }
    ) throws -> [[Double]] {
        var values = Array(repeating: [Double](), count: sides.count)
        for round in 0..<rounds {
            let order = round % 2 == 0 ? Array(sides.indices) : sides.indices.reversed()
            for side in order { values[side].append(try sides[side]()) }
            log(round + 1, values.map { $0[round] })
        }
        return values
    }

    /// Per-round ratios `numerator[i] / denominator[i]`.
    package static func ratios(_ numerator: [Double], _ denominator: [Double]) -> [Double] {
        zip(numerator, denominator).map { $0 / $1 }
    }
}

/// The median of `values` (the mean of the middle two for an even count; 0 when empty).
package func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
