import BackbeatOpenAL

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A filter on a voice's or a bus's direct path, by cutoff frequency or by
/// raw EFX gains (see Backbeat.docc/Environments.md for the mapping).
///
/// OpenAL Soft's filters are shelves: a low-pass lowers what lies above
/// 5 kHz, a high-pass what lies below 250 Hz. A cutoff picks the shelf gain
/// that attenuates a tone at twice the cutoff (low-pass) or at half the
/// cutoff (high-pass) by 7 dB, what a first-order filter does there.
public enum AudioFilter: Sendable, Equatable {
    /// Lowers frequencies above `cutoff` Hz (clamped to 125 Hz ... a fifth of the output rate).
    case lowPass(cutoff: Float)
    /// Lowers frequencies below `cutoff` Hz (clamped to 40 Hz ... 10 kHz).
    case highPass(cutoff: Float)
    /// Keeps `lowCutoff` ... `highCutoff` Hz: a high-pass and a low-pass together.
    case bandPass(lowCutoff: Float, highCutoff: Float)
    /// Raw EFX gains, each 0...1: broadband, below 250 Hz, above 5 kHz.
    case gains(gain: Float, gainLF: Float, gainHF: Float)

    /// How much a cutoff filter lowers a tone at twice (low-pass) or half
    /// (high-pass) its cutoff, in dB.
    public static let attenuationAtOctave: Float = -7

    /// The EFX gains this filter maps to at `sampleRate`.
    package func gains(sampleRate: Int) -> FilterGains {
        let rate = Double(max(8_000, sampleRate))
        switch self {
        case .lowPass(let cutoff):
            return FilterGains(gain: 1, gainLF: 1, gainHF: Self.lowPassGainHF(cutoff: cutoff, sampleRate: rate))
        case .highPass(let cutoff):
            return FilterGains(gain: 1, gainLF: Self.highPassGainLF(cutoff: cutoff, sampleRate: rate), gainHF: 1)
        case .bandPass(let low, let high):
            return FilterGains(
                gain: 1, gainLF: Self.highPassGainLF(cutoff: low, sampleRate: rate),
                gainHF: Self.lowPassGainHF(cutoff: high, sampleRate: rate))
        case .gains(let gain, let gainLF, let gainHF):
            return FilterGains(gain: gain, gainLF: gainLF, gainHF: gainHF)
        }
    }

    // MARK: The cutoff mapping

    /// The low-pass shelf's corner (OpenAL Soft 1.19: LOWPASSFREQREF).
    static let highShelfFrequency = 5_000.0
    /// The high-pass shelf's corner (HIGHPASSFREQREF).
    static let lowShelfFrequency = 250.0
    /// The smallest shelf gain the mapping uses (-60 dB at the corner).
    static let minimumShelfGain = 0.001

    static func lowPassGainHF(cutoff: Float, sampleRate: Double) -> Float {
        let top = sampleRate / 5
        let fc = cutoff.isNaN ? top : min(max(Double(cutoff), 125), top)
        return Float(shelfGain(at: 2 * fc, corner: highShelfFrequency, high: true, sampleRate: sampleRate))
    }

    static func highPassGainLF(cutoff: Float, sampleRate: Double) -> Float {
        let fc = cutoff.isNaN ? 40 : min(max(Double(cutoff), 40), 10_000)
        return Float(shelfGain(at: fc / 2, corner: lowShelfFrequency, high: false, sampleRate: sampleRate))
    }

    /// The shelf gain whose response at `frequency` is ``attenuationAtOctave``
    /// (bisection on the gain in dB; the response falls as the gain does).
    static func shelfGain(at frequency: Double, corner: Double, high: Bool, sampleRate: Double) -> Double {
        let target = pow(10, Double(attenuationAtOctave) / 20)
        var lo = log10(minimumShelfGain)
        var hi = 0.0
        if shelfResponse(gain: minimumShelfGain, at: frequency, corner: corner, high: high, sampleRate: sampleRate)
            >= target
        {
            return minimumShelfGain
        }
        for _ in 0..<60 {
            let mid = (lo + hi) / 2
            let r = shelfResponse(gain: pow(10, mid), at: frequency, corner: corner, high: high, sampleRate: sampleRate)
            if r > target { hi = mid } else { lo = mid }
        }
        return pow(10, (lo + hi) / 2)
    }

    /// The magnitude of OpenAL Soft 1.19's shelf biquad (RBJ cookbook, slope 1,
    /// with the filter's gain as the cookbook's A) at `frequency`.
    package static func shelfResponse(
        gain a: Double, at frequency: Double, corner: Double, high: Bool, sampleRate: Double
    ) -> Double {
        let w0 = 2 * Double.pi * corner / sampleRate
        let cw = cos(w0)
        let alpha = sin(w0) / 2 * 2.0.squareRoot()
        let s = 2 * a.squareRoot() * alpha
        let b0: Double
        let b1: Double
        let b2: Double
        let a0: Double
        let a1: Double
        let a2: Double
        if high {
            b0 = a * ((a + 1) + (a - 1) * cw + s)
            b1 = -2 * a * ((a - 1) + (a + 1) * cw)
            b2 = a * ((a + 1) + (a - 1) * cw - s)
            a0 = (a + 1) - (a - 1) * cw + s
            a1 = 2 * ((a - 1) - (a + 1) * cw)
            a2 = (a + 1) - (a - 1) * cw - s
        } else {
            b0 = a * ((a + 1) - (a - 1) * cw + s)
            b1 = 2 * a * ((a - 1) - (a + 1) * cw)
            b2 = a * ((a + 1) - (a - 1) * cw - s)
            a0 = (a + 1) + (a - 1) * cw + s
            a1 = -2 * ((a - 1) + (a + 1) * cw)
            a2 = (a + 1) + (a - 1) * cw - s
        }
        let w = 2 * Double.pi * frequency / sampleRate
        func magnitude(_ c0: Double, _ c1: Double, _ c2: Double) -> Double {
            let re = c0 + c1 * cos(w) + c2 * cos(2 * w)
            let im = -(c1 * sin(w) + c2 * sin(2 * w))
            return (re * re + im * im).squareRoot()
        }
        return magnitude(b0, b1, b2) / magnitude(a0, a1, a2)
    }
}

/// What one auxiliary send of a source carries: the effect slot it feeds
/// and the filter on the way. A silent one feeds no slot, since a send to a
/// slot costs OpenAL a mix of the source.
package struct AuxiliarySend: Equatable {
    package let slot: ALEffectSlot?
    package let gains: FilterGains

    package init(to slot: ALEffectSlot?, through gains: FilterGains) {
        self.slot = gains.gain > 0 ? slot : nil
        self.gains = gains
    }

    /// The bus effect's share of a path through the filter `gains`: `wet` of
    /// it through the send to the effect's slot, and the `1 - wet` the direct
    /// path keeps. A device that grants one send keeps it for the environment
    /// reverb: the effect is skipped and the path stays dry.
    package static func busEffect(
        _ effect: (slot: ALEffectSlot, wet: Float)?, of gains: FilterGains, on device: ALDevice
    ) -> (send: AuxiliarySend, direct: FilterGains) {
        let wet = effect.map { device.auxiliarySendCount > 1 ? $0.wet : 0 } ?? 0
        return (
            AuxiliarySend(to: effect?.slot, through: gains.then(FilterGains(gain: wet, gainLF: 1, gainHF: 1))),
            gains.then(FilterGains(gain: 1 - wet, gainLF: 1, gainHF: 1))
        )
    }

    /// Sets send `index` of `source` to this, unless `applied` (what it was
    /// last set to; nil: never, so no slot) already is; then records it.
    package func apply(_ index: Int, of source: ALSource, on device: ALDevice, over applied: inout AuxiliarySend?) {
        guard slot != applied?.slot || (slot != nil && gains != applied?.gains) else { return }
        device.setSend(index, of: source, to: slot, filter: gains.alParameters)
        applied = self
    }
}

/// Broadband, low and high shelf gains of a direct path (each 0...1); filters
/// in series multiply.
package struct FilterGains: Equatable, Sendable {
    package var gain: Float
    package var gainLF: Float
    package var gainHF: Float

    package static let open = FilterGains(gain: 1, gainLF: 1, gainHF: 1)

    package init(gain: Float, gainLF: Float, gainHF: Float) {
        func c(_ v: Float) -> Float { v.isNaN ? 1 : min(max(v, 0), 1) }
        self.gain = c(gain)
        self.gainLF = c(gainLF)
        self.gainHF = c(gainHF)
    }

    /// A low-pass of `decibels` (≤ 0) at 5 kHz with `lowFrequencyRatio` of it
    /// broadband (EAX's obstruction and occlusion: LF ratio 0 and 0.25).
    package init(decibels: Float, lowFrequencyRatio: Float) {
        let db = decibels.isNaN ? 0 : min(max(decibels, -100), 0)
        let broadband = db * lowFrequencyRatio
        self.init(gain: pow(10, broadband / 20), gainLF: 1, gainHF: pow(10, (db - broadband) / 20))
    }

    /// Both filters in series.
    package func then(_ other: FilterGains) -> FilterGains {
        FilterGains(gain: gain * other.gain, gainLF: gainLF * other.gainLF, gainHF: gainHF * other.gainHF)
    }

    /// The EFX filter with these gains: none when all are 1.
    package var alParameters: ALFilterParameters {
        if self == .open { return .none }
        let hf = max(gainHF, Float(AudioFilter.minimumShelfGain))
        let lf = max(gainLF, Float(AudioFilter.minimumShelfGain))
        if gainLF >= 1 { return .lowPass(gain: gain, gainHF: hf) }
        if gainHF >= 1 { return .highPass(gain: gain, gainLF: lf) }
        return .bandPass(gain: gain, gainLF: lf, gainHF: hf)
    }

    /// The gains `fraction` of the way from `self` to `target`, in dB (a
    /// glide that sounds even); gains of 0 glide from -100 dB. A gain that
    /// does not change stays exactly as it is: a send held at 0 while the
    /// direct path glides stays 0, not -100 dB, which would keep the source
    /// connected to its effect slot (and OpenAL mixing it in) for the glide.
    package func moved(toward target: FilterGains, fraction: Float) -> FilterGains {
        let t = fraction.isNaN ? 1 : min(max(fraction, 0), 1)
        func m(_ a: Float, _ b: Float) -> Float {
            if t >= 1 || a == b { return b }
            let da = 20 * log10(max(a, 1e-5))
            let db = 20 * log10(max(b, 1e-5))
            return pow(10, (da + (db - da) * t) / 20)
        }
        return FilterGains(
            gain: m(gain, target.gain), gainLF: m(gainLF, target.gainLF), gainHF: m(gainHF, target.gainHF))
    }
}
