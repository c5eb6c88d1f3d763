import BackbeatEngine

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The band-pass settings that come closest to three band gains through
/// OpenAL Soft 1.19's filter: a broadband gain, a low shelf at 250 Hz and a
/// high shelf at 5 kHz (``AudioFilter/shelfResponse(gain:at:corner:high:sampleRate:)``),
/// both of which can only cut.
///
/// The shelves are far from the bands' edges: a cut of x dB asked of the
/// low shelf is 0.3·x to 0.9·x at 400 Hz, of the high shelf 0.1·x to 0.8·x
/// at 2.5 kHz and 1.3·x to 2·x at 12 kHz, by how deep. So a wall that
/// passes more of the low band than the mid (most of them) cannot be heard
/// exactly: the fit chooses the shelves that make the largest error over
/// the three bands smallest (each band's level the mean energy of the
/// shelves' real response at its octaves' centres), and the broadband gain
/// that splits it.
///
/// The best shelves depend only on how the low and high bands stand to the
/// mid band, so they are searched once, on first use, for a grid of those
/// two differences (every 2 dB from -60 to +60), and a voice's are read off
/// the grid between its four nearest points: about a hundred operations a
/// voice, against a few thousand for a search.
enum BandFilterFit {
    /// The shelves' deepest cut, dB at the corner (OpenAL Soft 1.19 limits them to -60 dB).
    static let deepest: Float = -60
    /// The shelf table's step, dB.
    static let shelfStep: Float = 0.5
    /// The smallest cut a shelf is set to, dB at the corner: a shallower one
    /// is none, since OpenAL Soft 1.19 runs a shelf's biquad on every sample
    /// whenever its gain is not exactly 1, and 0.5 dB at the corner is
    /// less than that in any band.
    static let shelfSnap: Float = 0.5
    /// The grid of band differences: from -`span` to +`span` dB, every `gridStep`.
    static let span: Float = 60
    static let gridStep: Float = 2
    /// The sample rate the shelves' responses are worked out at (the engine's default).
    static let sampleRate = 48_000.0
    /// OpenAL Soft 1.19's shelf corners (HIGHPASSFREQREF, LOWPASSFREQREF), hertz.
    static let lowCorner = 250.0
    static let highCorner = 5_000.0

    /// Where each band's level is taken: its octaves' centres (low 125–500 Hz,
    /// mid 1–4 kHz, high 9–16 kHz), the band's level the mean of their
    /// energies. A single centre would not do: at 400 Hz the low shelf is at
    /// 40 % of its cut, at 125 Hz at 95 %.
    /// Three a band: ``levels(low:high:)`` counts on it.
    static let bandFrequencies: [[Double]] = [[125, 250, 500], [1_000, 2_000, 4_000], [9_000, 12_000, 16_000]]

    /// Each shelf's power response at every band frequency (flattened, low
    /// band's first) for each cut from 0 to ``deepest`` every ``shelfStep``:
    /// `low[k]` and `high[k]` for a cut of −k·step dB at the corner.
    static let shelves: (low: [[Float]], high: [[Float]]) = {
        let count = Int(-deepest / shelfStep) + 1
        let frequencies = bandFrequencies.flatMap { $0 }
        func responses(corner: Double, high: Bool) -> [[Float]] {
            (0..<count).map { k in
                let gain = pow(10, -Double(k) * Double(shelfStep) / 20)
                return frequencies.map {
                    let r = AudioFilter.shelfResponse(
                        gain: gain, at: $0, corner: corner, high: high, sampleRate: sampleRate)
                    return Float(r * r)
                }
            }
        }
        return (responses(corner: lowCorner, high: false), responses(corner: highCorner, high: true))
    }()

    /// The shelf table's row for a cut of `decibels`, the nearest.
    ///
    /// - Parameter decibels: The cut at the corner, ``deepest``...0.
    static func row(_ decibels: Float) -> Int {
        Int((min(max(-decibels, 0), -deepest) / shelfStep).rounded())
    }

    /// Each band's level (dB) through the shelves' rows `low` and `high`.
    ///
    /// - Parameters:
    ///   - low: The low shelf's row in ``shelves``.
    ///   - high: The high shelf's row.
    static func levels(low: Int, high: Int) -> AcousticBands {
        let l = shelves.low[low]
        let h = shelves.high[high]
        // Three frequencies a band, as ``bandFrequencies`` lists them; no array a call.
        func level(_ k: Int) -> Float {
            let energy = l[k] * h[k] + l[k + 1] * h[k + 1] + l[k + 2] * h[k + 2]
            return 10 * log10(max(energy / 3, 1e-20))
        }
        return AcousticBands(low: level(0), mid: level(3), high: level(6))
    }

    /// What each band is still off by for the cuts `low` and `high` (dB at
    /// the corners), before the broadband gain: wanted minus the shelves' response.
    ///
    /// - Parameters:
    ///   - wanted: The band gains wanted, dB.
    ///   - low: The low shelf's cut, dB.
    ///   - high: The high shelf's cut, dB.
    static func residual(_ wanted: AcousticBands, low: Float, high: Float) -> AcousticBands {
        let r = levels(low: row(low), high: row(high))
        return AcousticBands(low: wanted.low - r.low, mid: wanted.mid - r.mid, high: wanted.high - r.high)
    }

    /// The largest minus the smallest of three values: twice the largest
    /// error once the broadband gain sits halfway.
    static func spread(_ e: AcousticBands) -> Float { max(e.low, e.mid, e.high) - min(e.low, e.mid, e.high) }

    /// The shelf cuts (dB) that make the largest error smallest, searched
    /// from `start` with steps halving from 16 dB to the table's 0.5 dB.
    ///
    /// - Parameters:
    ///   - wanted: The band gains wanted, dB.
    ///   - start: Where the search starts (the neighbouring grid point's answer).
    static func search(_ wanted: AcousticBands, from start: (low: Float, high: Float)) -> (low: Float, high: Float) {
        var best = start
        var bestSpread = spread(residual(wanted, low: best.low, high: best.high))
        var step: Float = 16
        while step >= shelfStep {
            var moved = false
            for (dl, dh) in [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, 1), (-1, 1), (1, -1)] as [(Float, Float)] {
                let low = min(max(best.low + dl * step, deepest), 0)
                let high = min(max(best.high + dh * step, deepest), 0)
                let s = spread(residual(wanted, low: low, high: high))
                // Ties go to the milder cut: no shelf where none helps.
                if s < bestSpread - 1e-4 || (s <= bestSpread + 1e-4 && low + high > best.low + best.high + 1e-4) {
                    best = (low, high)
                    bestSpread = s
                    moved = true
                }
            }
            if !moved { step /= 2 }
        }
        return best
    }

    /// The best shelf cuts for each grid point: `grid[i][j]` for the low band
    /// `-span + i·step` and the high band `-span + j·step` dB against the mid.
    static let grid: [[(low: Float, high: Float)]] = {
        let n = Int(2 * span / gridStep) + 1
        var rows: [[(low: Float, high: Float)]] = []
        rows.reserveCapacity(n)
        var start: (low: Float, high: Float) = (0, 0)
        for i in 0..<n {
            var row: [(low: Float, high: Float)] = []
            row.reserveCapacity(n)
            for j in 0..<n {
                let wanted = AcousticBands(low: -span + Float(i) * gridStep, mid: 0, high: -span + Float(j) * gridStep)
                // From the neighbour's answer, and from no shelf: a search
                // from the neighbour alone can stay in a pit the neighbour's
                // deep cuts lead to (a path whose low band is louder than the
                // mid got both shelves 30 dB deep, 27 dB off, where no low
                // shelf and a 6 dB high shelf are 4 dB off).
                let near = search(wanted, from: j == 0 ? (rows.last?[0] ?? (0, 0)) : start)
                let open = search(wanted, from: (0, 0))
                func worst(_ cuts: (low: Float, high: Float)) -> Float {
                    spread(residual(wanted, low: cuts.low, high: cuts.high))
                }
                start = worst(open) < worst(near) - 1e-4 ? open : near
                row.append(start)
            }
            rows.append(row)
        }
        return rows
    }()

    /// The band-pass settings for the band gains `gains` (amplitudes).
    ///
    /// - Parameter gains: The wanted amplitude gain of each band, 0...1.
    static func filter(for gains: AcousticBands) -> FilterGains {
        guard max(gains.low, gains.mid, gains.high) > 0 else { return FilterGains(gain: 0, gainLF: 1, gainHF: 1) }
        // -100 dB is silence for a game; it keeps the differences finite.
        let wanted = gains.map { 20 * log10(max($0, 1e-5)) }
        // The shelves between the four grid points around the differences.
        let x = (min(max(wanted.low - wanted.mid, -span), span) + span) / gridStep
        let y = (min(max(wanted.high - wanted.mid, -span), span) + span) / gridStep
        let last = grid.count - 1
        let i = min(Int(x), last - 1)
        let j = min(Int(y), last - 1)
        let (tx, ty) = (x - Float(i), y - Float(j))
        func blend(_ value: ((low: Float, high: Float)) -> Float) -> Float {
            let top = value(grid[i][j]) + (value(grid[i][j + 1]) - value(grid[i][j])) * ty
            let bottom = value(grid[i + 1][j]) + (value(grid[i + 1][j + 1]) - value(grid[i + 1][j])) * ty
            return top + (bottom - top) * tx
        }
        // A cut within ``shelfSnap`` is no shelf: OpenAL then skips its biquad.
        func snapped(_ cut: Float) -> Float { cut > -shelfSnap ? 0 : cut }
        let low = snapped(blend(\.low))
        let high = snapped(blend(\.high))
        let e = residual(wanted, low: low, high: high)
        // The broadband gain halfway between the bands still too loud and too quiet; it cannot lift.
        let broadband = min((max(e.low, e.mid, e.high) + min(e.low, e.mid, e.high)) / 2, 0)
        func amplitude(_ decibels: Float) -> Float { pow(10, decibels / 20) }
        return FilterGains(
            gain: amplitude(broadband), gainLF: low == 0 ? 1 : amplitude(low), gainHF: high == 0 ? 1 : amplitude(high))
    }
}
