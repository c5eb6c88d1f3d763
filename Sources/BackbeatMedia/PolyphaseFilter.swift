import BackbeatSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The filter bank of a rational sample-rate change by `upFactor / downFactor`
/// (44.1 → 48 kHz is 160 / 147): one Kaiser-windowed sinc, cut at the lower
/// rate's Nyquist, sampled at each of the `upFactor` phases an output frame
/// can fall on between two input frames.
///
/// The design, against the lower of the two rates: passband to 0.375 of it
/// (16.5 kHz at 44.1 kHz) within 1e-4, stopband from 0.5 (its Nyquist) down
/// at least 90 dB, so images and aliases of the passband are under −90 dB.
/// That takes 48 taps a phase going up, and 48 × down/up going down.
///
/// Banks are built once per ratio and shared (a seek makes a new resampler).
package final class PolyphaseFilter: Sendable {
    /// Output frames per `downFactor` input frames; the number of phases.
    package let upFactor: Int
    package let downFactor: Int
    /// Taps per phase, a multiple of 8.
    package let taps: Int
    /// `upFactor` rows of `taps` coefficients. Row `p` weighs the input frames
    /// `i - taps/2 + 1 ... i + taps/2` for an output at input time `i + p / upFactor`.
    let coefficients: [Float]

    /// The most phases a bank may have (44.1 → 48 kHz has 160, 11.025 → 48 kHz 640).
    static let maximumPhases = 1_024
    /// Kaiser β for a 90 dB stopband (β = 0.1102 (A − 8.7)).
    static let beta = 8.96
    /// The transition, as a fraction of the lower rate: from 0.375 to 0.5.
    static let passbandEdge = 0.375

    private static let cache = LockedValueBox<[Int: PolyphaseFilter]>([:])

    /// The bank for `sourceRate` → `targetRate`, or nil when the reduced
    /// ratio needs more than ``maximumPhases`` phases.
    package static func bank(from sourceRate: Int, to targetRate: Int) -> PolyphaseFilter? {
        guard sourceRate > 0, targetRate > 0 else { return nil }
        let divisor = gcd(sourceRate, targetRate)
        let (up, down) = (targetRate / divisor, sourceRate / divisor)
        guard up <= maximumPhases, down <= maximumPhases * 8 else { return nil }
        let key = up << 32 | down
        return cache.withLockedValue { banks in
            if let bank = banks[key] { return bank }
            let bank = PolyphaseFilter(up: up, down: down)
            banks[key] = bank
            return bank
        }
    }

    private init(up: Int, down: Int) {
        upFactor = up
        downFactor = down
        // Cycles per input frame: the transition sits below the lower rate's Nyquist.
        let scale = min(1, Double(up) / Double(down))
        let cutoff = scale * (Self.passbandEdge + 0.5) / 2
        // Kaiser: taps = (A - 7.95) / (14.36 Δf), Δf in cycles per input frame.
        let width = 0.125 * scale
        let needed = Int(((90 - 7.95) / (14.36 * width)).rounded(.up))
        taps = (needed + 7) / 8 * 8
        let half = Double(taps / 2)
        var rows = [Float](repeating: 0, count: up * taps)
        let i0Beta = Self.besselI0(Self.beta)
        var row = [Double](repeating: 0, count: taps)
        for phase in 0..<up {
            let fraction = Double(phase) / Double(up)
            var sum = 0.0
            for j in 0..<taps {
                // Distance from the output's input time to input frame i - taps/2 + 1 + j.
                let tau = fraction + half - 1 - Double(j)
                let x = tau / half
                let window = abs(x) < 1 ? Self.besselI0(Self.beta * (1 - x * x).squareRoot()) / i0Beta : 0
                let t = 2 * cutoff * tau
                let sinc = t == 0 ? 1 : sin(Double.pi * t) / (Double.pi * t)
                row[j] = 2 * cutoff * sinc * window
                sum += row[j]
            }
            // Each phase passes DC at exactly 1.
            for j in 0..<taps { rows[phase * taps + j] = Float(row[j] / sum) }
        }
        coefficients = rows
    }

    /// The zeroth-order modified Bessel function of the first kind, by its series.
    private static func besselI0(_ x: Double) -> Double {
        var sum = 1.0
        var term = 1.0
        let quarter = x * x / 4
        for k in 1..<64 {
            term *= quarter / Double(k * k)
            sum += term
            if term < sum * 1e-17 { break }
        }
        return sum
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}

/// The running state of a ``PolyphaseFilter`` over one stream: the input not
/// yet used up, one contiguous row per channel, and where the next output
/// frame falls in it.
struct PolyphaseState {
    let bank: PolyphaseFilter
    let channelCount: Int
    /// Input frames held per channel, starting at absolute input frame `start`.
    private var pending: [[Float]]
    private var start: Int
    /// The next output's input time: frame `index` plus `phase / upFactor`.
    private var index = 0
    private var phase = 0
    /// Input frames taken in so far, and whether the last came.
    private var received = 0
    private var ended = false

    init(bank: PolyphaseFilter, channelCount: Int) {
        self.bank = bank
        self.channelCount = channelCount
        // Zeros before the first frame, so the first output's window is whole.
        let lead = bank.taps / 2 - 1
        pending = Array(repeating: [Float](repeating: 0, count: lead), count: channelCount)
        start = -lead
    }

    /// Takes `frames` interleaved input frames (zero with `endOfInput` to
    /// finish) and appends every output frame they complete to `output`.
    /// At the end, outputs run up to the last input frame's time, so
    /// `frames × up / down` frames come out in all, rounded up.
    mutating func process(_ input: UnsafePointer<Float>, frames: Int, endOfInput: Bool, into output: inout [Float]) {
        guard !ended else { return }
        let channels = channelCount
        for channel in 0..<channels {
            pending[channel].reserveCapacity(pending[channel].count + frames + bank.taps)
            for frame in 0..<frames { pending[channel].append(input[frame * channels + channel]) }
        }
        received += frames
        if endOfInput {
            ended = true
            for channel in 0..<channels {
                pending[channel].append(contentsOf: repeatElement(0, count: bank.taps / 2))
            }
        }
        let taps = bank.taps
        let half = taps / 2
        let available = start + pending[0].count
        let (up, down) = (bank.upFactor, bank.downFactor)
        let (step, stepPhase) = (down / up, down % up)
        // An output needs input up to index + taps/2, and (at the end) an input time before the last frame.
        var count = 0
        var next = (index: index, phase: phase)
        while next.index + half < available && (!ended || next.index < received) {
            count += 1
            next.index += step
            next.phase += stepPhase
            if next.phase >= up {
                next.phase -= up
                next.index += 1
            }
        }
        guard count > 0 else { return }
        let base = output.count
        output.append(contentsOf: repeatElement(0, count: count * channels))
        output.withUnsafeMutableBufferPointer { out in
            bank.coefficients.withUnsafeBufferPointer { table in
                for channel in 0..<channels {
                    pending[channel].withUnsafeBufferPointer { row in
                        var i = index
                        var p = phase
                        for n in 0..<count {
                            let window = row.baseAddress! + (i - half + 1 - start)
                            let weights = table.baseAddress! + p * taps
                            out[base + n * channels + channel] = Self.dot(weights, window, taps)
                            i += step
                            p += stepPhase
                            if p >= up {
                                p -= up
                                i += 1
                            }
                        }
                    }
                }
            }
        }
        // The count's walk ended at the next output's input time.
        (index, phase) = next
        // Drop the input no later output reaches.
        let keepFrom = index - half + 1
        let drop = min(keepFrom - start, pending[0].count)
        if drop > 0 {
            for channel in 0..<channels { pending[channel].removeFirst(drop) }
            start += drop
        }
    }

    /// Σ weights[k] · samples[k] over `count` (a multiple of 8) values, eight lanes at a time.
    @inline(__always)
    private static func dot(_ weights: UnsafePointer<Float>, _ samples: UnsafePointer<Float>, _ count: Int) -> Float {
        let w = UnsafeRawPointer(weights)
        let s = UnsafeRawPointer(samples)
        let stride = MemoryLayout<SIMD8<Float>>.stride
        var a = SIMD8<Float>()
        var b = SIMD8<Float>()
        var k = 0
        while k + 16 <= count {
            a +=
                w.loadUnaligned(fromByteOffset: k * 4, as: SIMD8<Float>.self)
                * s.loadUnaligned(fromByteOffset: k * 4, as: SIMD8<Float>.self)
            b +=
                w.loadUnaligned(fromByteOffset: k * 4 + stride, as: SIMD8<Float>.self)
                * s.loadUnaligned(fromByteOffset: k * 4 + stride, as: SIMD8<Float>.self)
            k += 16
        }
        if k < count {
            a +=
                w.loadUnaligned(fromByteOffset: k * 4, as: SIMD8<Float>.self)
                * s.loadUnaligned(fromByteOffset: k * 4, as: SIMD8<Float>.self)
        }
        return (a + b).sum()
    }
}
