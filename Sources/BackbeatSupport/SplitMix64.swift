/// A small seedable generator (SplitMix64): shuffles, the demo's random
/// songs, benchmark scenes and test garbage all repeat from a seed.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator seeded with `seed`.
    package init(seed: UInt64) { state = seed }

    /// Its whole state: a generator made with this as its seed goes on
    /// exactly where this one is (a capture keeps it to replay the choices).
    package var currentState: UInt64 { state }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` (bound > 0).
    package mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// A uniform value in 0..<1.
    package mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Shuffles `values` in place.
    package mutating func shuffle<T>(_ values: inout [T]) { values.shuffle(using: &self) }
}
