#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One value for each of the three bands acoustics works in, as Steam Audio:
/// low (below 800 Hz), mid (800 Hz to 8 kHz) and high (above 8 kHz).
public struct AcousticBands: Sendable, Equatable, CustomStringConvertible {
    /// Below 800 Hz.
    public var low: Float
    /// 800 Hz to 8 kHz.
    public var mid: Float
    /// Above 8 kHz.
    public var high: Float

    /// Three values.
    ///
    /// - Parameters:
    ///   - low: The value below 800 Hz.
    ///   - mid: The value from 800 Hz to 8 kHz.
    ///   - high: The value above 8 kHz.
    public init(low: Float, mid: Float, high: Float) {
        self.low = low
        self.mid = mid
        self.high = high
    }

    /// The same value in every band.
    ///
    /// - Parameter value: The value of all three bands.
    public init(_ value: Float) { self.init(low: value, mid: value, high: value) }

    /// The frequency each band's frequency-dependent formulas (diffraction)
    /// are evaluated at, in hertz: the geometric centres of 200–800 Hz,
    /// 800 Hz–8 kHz and 8–18 kHz, rounded (400 Hz, 2.5 kHz, 12 kHz).
    public static let centreFrequencies = AcousticBands(low: 400, mid: 2500, high: 12000)

    /// The speed of sound the formulas use, metres per second (air at 20 °C).
    public static let speedOfSound: Float = 343

    /// All three bands' values, low first.
    var values: [Float] { [low, mid, high] }

    /// Applies `transform` to each band.
    ///
    /// - Parameter transform: What to do with one band's value.
    func map(_ transform: (Float) -> Float) -> AcousticBands {
        AcousticBands(low: transform(low), mid: transform(mid), high: transform(high))
    }

    /// Combines two values band by band.
    ///
    /// - Parameters:
    ///   - other: The other values.
    ///   - combine: What to do with a pair.
    func combined(with other: AcousticBands, _ combine: (Float, Float) -> Float) -> AcousticBands {
        AcousticBands(low: combine(low, other.low), mid: combine(mid, other.mid), high: combine(high, other.high))
    }

    /// Band-by-band product (amplitude gains in series).
    static func * (a: AcousticBands, b: AcousticBands) -> AcousticBands { a.combined(with: b, *) }

    /// The gains in decibels, 20·log10 (amplitude), floored at -200 dB.
    public var decibels: AcousticBands { map { 20 * log10(max($0, 1e-10)) } }

    public var description: String { "(\(low), \(mid), \(high))" }
}
