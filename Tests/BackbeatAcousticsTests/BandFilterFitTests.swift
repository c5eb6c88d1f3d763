import Testing

@testable import BackbeatAcoustics
@testable import BackbeatEngine

#if canImport(Glibc)
import Glibc
#endif

/// The band fit against the best shelves found by trying every pair: the
/// grid it reads from must not hold a poor local answer.
@Suite struct BandFilterFitTests {
    /// The largest band error (dB, before the broadband gain splits it) of
    /// the best shelves, tried every 1 dB.
    static func bestSpread(_ wanted: AcousticBands) -> Float {
        var best = Float.infinity
        for low in stride(from: Float(0), through: BandFilterFit.deepest, by: -1) {
            for high in stride(from: Float(0), through: BandFilterFit.deepest, by: -1) {
                best = min(best, BandFilterFit.spread(BandFilterFit.residual(wanted, low: low, high: high)))
            }
        }
        return best
    }

    /// The fit's own largest band error for `gains` (amplitudes).
    static func fitSpread(_ gains: AcousticBands) -> Float {
        let filter = BandFilterFit.filter(for: gains)
        let wanted = gains.map { 20 * log10f(max($0, 1e-5)) }
        func cut(_ g: Float) -> Float { 20 * log10f(g) }
        return BandFilterFit.spread(BandFilterFit.residual(wanted, low: cut(filter.gainLF), high: cut(filter.gainHF)))
    }

    @Test func aPathWhoseLowBandIsLouderThanItsMidGetsTheBestShelves() {
        // A diffracted path from the 10,000-emitter scene: low −6.8, mid −11.9, high −18.4 dB.
        let gains = AcousticBands(low: 0.456, mid: 0.255, high: 0.120)
        let filter = BandFilterFit.filter(for: gains)
        #expect(Self.fitSpread(gains) <= Self.bestSpread(gains.map { 20 * log10f($0) }) + 1)
        // The mid band is not left louder than the path: the broadband gain takes it down.
        #expect(filter.gain < 0.5)
    }

    @Test func noBandShapeIsFittedFarWorseThanTheBestShelves() {
        var worst: (excess: Float, low: Float, high: Float) = (0, 0, 0)
        for low in stride(from: Float(-40), through: 20, by: 6) {
            for high in stride(from: Float(-50), through: 10, by: 6) {
                let wanted = AcousticBands(low: low - 20, mid: -20, high: high - 20)
                let excess = Self.fitSpread(wanted.map { powf(10, $0 / 20) }) - Self.bestSpread(wanted)
                if excess > worst.excess { worst = (excess, low, high) }
            }
        }
        #expect(worst.excess <= 1.5, "low \(worst.low), high \(worst.high) dB against the mid: \(worst.excess) dB over")
    }
}
