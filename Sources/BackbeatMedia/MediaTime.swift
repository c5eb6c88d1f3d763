/// A point or span of time as a rational number: `value / timescale` seconds.
///
/// Like `CMTime`, a `MediaTime` keeps exact frame counts: 44,100 frames at a
/// timescale of 44,100 is exactly one second, with no floating-point drift.
/// Arithmetic and comparison work across timescales, exactly. Converting to a
/// coarser timescale rounds as you ask.
public struct MediaTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The numerator.
    public var value: Int64
    /// Units per second; always positive.
    public var timescale: Int32

    /// How to round when a conversion is not exact.
    public enum Rounding: Sendable {
        /// Round half away from zero.
        case nearest
        /// Round toward negative infinity.
        case down
        /// Round toward positive infinity.
        case up
        /// Round toward zero.
        case towardZero
    }

    /// Creates `value / timescale` seconds. A timescale of zero or below traps.
    ///
    /// - Parameters:
    ///   - value: The count of `1/timescale` second units.
    ///   - timescale: Units per second, such as 48,000 for frames at 48 kHz.
    public init(value: Int64, timescale: Int32) {
        precondition(timescale > 0, "MediaTime timescale must be positive")
        self.value = value
        self.timescale = timescale
    }

    /// A frame count at a sample rate.
    ///
    /// - Parameters:
    ///   - frames: The frame count.
    ///   - sampleRate: Frames per second, in Hz: the time's timescale (below 1 counts as 1).
    public init(frames: Int64, sampleRate: Int) {
        // A rate is at least 1 and fits a timescale: saturate, never trap.
        self.init(value: frames, timescale: Int32(clamping: Swift.max(1, sampleRate)))
    }

    /// Seconds, at the given timescale (default: microseconds), rounded to nearest.
    ///
    /// - Parameters:
    ///   - seconds: The time in seconds; NaN counts as 0, and huge values saturate.
    ///   - preferredTimescale: Units per second the time is kept in.
    public init(seconds: Double, preferredTimescale: Int32 = 1_000_000) {
        let scaled = (seconds * Double(preferredTimescale)).rounded()
        let clamped = scaled.isNaN ? 0 : Swift.min(Swift.max(scaled, Double(Int64.min / 2)), Double(Int64.max / 2))
        self.init(value: Int64(clamped), timescale: preferredTimescale)
    }

    /// Zero seconds.
    public static let zero = MediaTime(value: 0, timescale: 1)

    /// The time in seconds, as a `Double`.
    public var seconds: Double { Double(value) / Double(timescale) }

    /// The time converted to another timescale, rounding as asked.
    ///
    /// - Parameters:
    ///   - newTimescale: Units per second, above 0 (0 or less traps).
    ///   - rounding: How a time between two units rounds.
    /// - Returns: The time at `newTimescale`, saturated if it does not fit.
    public func converted(to newTimescale: Int32, rounding: Rounding = .nearest) -> MediaTime {
        precondition(newTimescale > 0, "MediaTime timescale must be positive")
        if newTimescale == timescale { return self }
        let numerator = Int128(value) * Int128(newTimescale)
        let converted = Self.divide(numerator, by: Int128(timescale), rounding: rounding)
        return MediaTime(value: Self.clamp(converted), timescale: newTimescale)
    }

    /// The number of frames at a sample rate, rounding as asked.
    ///
    /// - Parameters:
    ///   - sampleRate: Frames per second, in Hz.
    ///   - rounding: How a time between two frames rounds.
    /// - Returns: The frame count (the time's value at that rate).
    public func frames(atSampleRate sampleRate: Int, rounding: Rounding = .nearest) -> Int64 {
        converted(to: Int32(clamping: Swift.max(1, sampleRate)), rounding: rounding).value
    }

    /// Whether this time is exactly representable at `timescale`.
    ///
    /// - Parameter newTimescale: Units per second, above 0.
    /// - Returns: True when converting to `newTimescale` would not round.
    public func isExact(at newTimescale: Int32) -> Bool {
        (Int128(value) * Int128(newTimescale)) % Int128(timescale) == 0
    }

    /// `m:ss`, or `h:mm:ss` from one hour, rounded down to whole seconds.
    /// Negative times get a leading minus sign.
    public var formatted: String {
        let whole = Self.divide(Int128(value), by: Int128(timescale), rounding: .towardZero)
        let total = whole < 0 ? -whole : whole
        let sign = value < 0 ? "-" : ""
        let h = total / 3600
        let m = (total / 60) % 60
        let s = total % 60
        func two(_ n: Int128) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(sign)\(h):\(two(m)):\(two(s))" : "\(sign)\(m):\(two(s))"
    }

    public var description: String { "\(value)/\(timescale)" }

    // MARK: Arithmetic across timescales

    /// Two times at a common timescale: the larger one when one divides the
    /// other, else the least common multiple when it fits, else the larger one
    /// (rounding to nearest).
    private static func common(_ a: MediaTime, _ b: MediaTime) -> (Int128, Int128, Int32) {
        if a.timescale == b.timescale { return (Int128(a.value), Int128(b.value), a.timescale) }
        let lcm = Int128(a.timescale) / Int128(gcd(Int64(a.timescale), Int64(b.timescale))) * Int128(b.timescale)
        let scale: Int32 = lcm <= Int128(Int32.max) ? Int32(lcm) : Swift.max(a.timescale, b.timescale)
        func at(_ t: MediaTime) -> Int128 {
            divide(Int128(t.value) * Int128(scale), by: Int128(t.timescale), rounding: .nearest)
        }
        return (at(a), at(b), scale)
    }

    /// The sum, exact across timescales.
    ///
    /// - Parameters:
    ///   - lhs: A time.
    ///   - rhs: The time to add.
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        let (a, b, scale) = common(lhs, rhs)
        return MediaTime(value: clamp(a + b), timescale: scale)
    }

    /// The difference, exact across timescales.
    ///
    /// - Parameters:
    ///   - lhs: A time.
    ///   - rhs: The time to subtract.
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        let (a, b, scale) = common(lhs, rhs)
        return MediaTime(value: clamp(a - b), timescale: scale)
    }

    /// Adds `rhs` to `lhs`.
    ///
    /// - Parameters:
    ///   - lhs: The time that grows.
    ///   - rhs: The time to add.
    public static func += (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs + rhs }
    /// Subtracts `rhs` from `lhs`.
    ///
    /// - Parameters:
    ///   - lhs: The time that shrinks.
    ///   - rhs: The time to subtract.
    public static func -= (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs - rhs }

    /// Scales a time by an integer.
    ///
    /// - Parameters:
    ///   - lhs: The time.
    ///   - rhs: The factor.
    /// - Returns: `lhs` times `rhs`, at `lhs`'s timescale.
    public static func * (lhs: MediaTime, rhs: Int64) -> MediaTime {
        MediaTime(value: clamp(Int128(lhs.value) * Int128(rhs)), timescale: lhs.timescale)
    }

    /// The time negated; `-Int64.min` saturates to `Int64.max`.
    ///
    /// - Parameter time: The time to negate.
    public static prefix func - (time: MediaTime) -> MediaTime {
        MediaTime(value: clamp(-Int128(time.value)), timescale: time.timescale)
    }

    /// Compares exactly, by cross-multiplying in 128 bits.
    ///
    /// - Parameters:
    ///   - lhs: A time.
    ///   - rhs: Another time.
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        Int128(lhs.value) * Int128(rhs.timescale) < Int128(rhs.value) * Int128(lhs.timescale)
    }

    /// Equal when they denote the same instant, whatever their timescales.
    ///
    /// - Parameters:
    ///   - lhs: A time.
    ///   - rhs: Another time.
    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        Int128(lhs.value) * Int128(rhs.timescale) == Int128(rhs.value) * Int128(lhs.timescale)
    }

    /// Hashes the instant, so equal times at different timescales hash alike.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        let g = Self.gcd(value, Int64(timescale))
        hasher.combine(value / g)
        hasher.combine(Int64(timescale) / g)
    }

    /// The smaller of two times.
    ///
    /// - Parameters:
    ///   - a: A time.
    ///   - b: Another time.
    public static func min(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a < b ? a : b }
    /// The larger of two times.
    ///
    /// - Parameters:
    ///   - a: A time.
    ///   - b: Another time.
    public static func max(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a < b ? b : a }

    // MARK: Helpers

    private static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (x, y) = (a.magnitude, b.magnitude)
        while y != 0 { (x, y) = (y, x % y) }
        return x == 0 ? 1 : Int64(x)
    }

    private static func clamp(_ v: Int128) -> Int64 {
        v > Int128(Int64.max) ? .max : (v < Int128(Int64.min) ? .min : Int64(v))
    }

    private static func divide(_ n: Int128, by d: Int128, rounding: Rounding) -> Int128 {
        let q = n / d
        let r = n % d
        if r == 0 { return q }
        let negative = (n < 0) != (d < 0)
        switch rounding {
        case .towardZero: return q
        case .down: return negative ? q - 1 : q
        case .up: return negative ? q : q + 1
        case .nearest:
            let twice = (r < 0 ? -r : r) * 2
            let dm = d < 0 ? -d : d
            return twice >= dm ? (negative ? q - 1 : q + 1) : q
        }
    }
}
