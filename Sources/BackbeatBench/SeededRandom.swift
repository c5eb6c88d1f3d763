import Backbeat
import BackbeatSupport

/// A small deterministic generator, so scenes and soak runs repeat: the
/// package's SplitMix64 with the two draws the benchmarks use.
package struct SeededRandom: Sendable {
    private var generator: SplitMix64

    /// A generator seeded with `seed`.
    package init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 { generator.next() }

    /// A uniform value in 0..<1.
    package mutating func nextUnit() -> Double { generator.nextUnit() }

    /// A uniform integer in `range`.
    package mutating func next(in range: Range<Int>) -> Int { range.lowerBound + generator.below(range.count) }
}
