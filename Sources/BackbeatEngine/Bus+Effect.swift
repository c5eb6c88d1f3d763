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
import BackbeatMedia
import BackbeatOpenAL
import BackbeatSupport

/// An effect a bus carries (an OpenAL EFX effect in an auxiliary slot of its
/// own). Every voice on the bus, or on a bus under it, feeds it through an
/// auxiliary send. Values are checked when the effect is set
/// (``Bus/setEffect(_:wetDryMix:)``): out of range is `.invalidArgument`.
public enum BusEffect: Equatable, Sendable {
    /// An echo: a copy `delay` later (0...0.207 s), then a second tap
    /// `delay` after that, each repeat `feedback` (0...1) of the one before,
    /// with `damping` (0...0.99) of high-frequency loss per repeat.
    case echo(delay: MediaTime, feedback: Float = 0, damping: Float = 0)
    /// A ring modulator (sine carrier at `frequency`, 0...8000 Hz): a tone at
    /// f becomes f - frequency and f + frequency.
    case ringModulator(frequency: Float)
    /// A four-band equalizer, each gain in decibels (-18...+18): a low shelf
    /// below 200 Hz, a peak at 500 Hz and one at 3 kHz (each one octave
    /// wide), a high shelf above 6 kHz.
    case equalizer(lowGain: Float = 0, mid1Gain: Float = 0, mid2Gain: Float = 0, highGain: Float = 0)

    /// The EFX values, or `.invalidArgument` naming the value out of range.
    func parameters() throws -> ALEffectParameters {
        func check(_ v: Float, _ range: ClosedRange<Float>, _ name: String) throws -> Float {
            guard !v.isNaN, range.contains(v) else {
                throw BackbeatError(
                    .invalidArgument, operation: "Bus.setEffect",
                    reason: "\(name) \(v) is outside \(range.lowerBound)...\(range.upperBound)")
            }
            return v
        }
        func gain(_ db: Float, _ name: String) throws -> Float {
            Float(pow(10.0, Double(try check(db, -18...18, name + " (dB)")) / 20))
        }
        switch self {
        case .echo(let delay, let feedback, let damping):
            let d = try check(Float(delay.seconds), 0...0.207, "echo delay (s)")
            return .echo(
                delay: d, lrDelay: d, damping: try check(damping, 0...0.99, "echo damping"),
                feedback: try check(feedback, 0...1, "echo feedback"), spread: 0)
        case .ringModulator(let frequency):
            return .ringModulator(
                frequency: try check(frequency, 0...8_000, "ring modulator frequency (Hz)"), highPassCutoff: 0,
                waveform: 0)
        case .equalizer(let low, let mid1, let mid2, let high):
            return .equalizer(
                lowGain: try gain(low, "equalizer low gain"), lowCutoff: 200,
                mid1Gain: try gain(mid1, "equalizer mid1 gain"), mid1Center: 500, mid1Width: 1,
                mid2Gain: try gain(mid2, "equalizer mid2 gain"), mid2Center: 3_000, mid2Width: 1,
                highGain: try gain(high, "equalizer high gain"), highCutoff: 6_000)
        }
    }
}

/// A bus's effect, its slot and its wet/dry glide, with the engine lock.
struct BusEffectState {
    var effect: BusEffect?
    var parameters: ALEffectParameters?
    var wetDryMix: Float = 1
    var slot: ALEffectSlot?
    var loaded: ALEffectParameters?
    var from: Float = 0
    var to: Float = 0
    var start: Int64 = 0
    var end: Int64 = 0

    func wet(at frame: Int64) -> Float {
        guard frame < end, end > start else { return to }
        return from + (to - from) * Float(Double(frame - start) / Double(end - start))
    }
}

extension Bus {
    /// The effect this bus carries (nil: none).
    public var effect: BusEffect? {
        engine.map { e in e.withLock { effectState.effect } } ?? effectState.effect
    }

    /// Puts `effect` on this bus (nil removes it). `wetDryMix` (0...1) is how
    /// much of each voice goes through the effect: the voice's send to it has
    /// gain `wetDryMix` and its direct path `1 - wetDryMix`, so 1 is the
    /// effect alone and 0.5 half each. Setting, changing the mix and removing
    /// glide over the de-zipper time (``AudioEngine/dezipperDuration``), so
    /// nothing clicks; a removed effect's slot empties once silent.
    /// - Throws: `.invalidArgument` for a value out of range (one line naming it).
    public func setEffect(_ effect: BusEffect?, wetDryMix: Float = 1) throws {
        let parameters = try effect?.parameters()
        guard !wetDryMix.isNaN, (0...1).contains(wetDryMix) else {
            throw BackbeatError(
                .invalidArgument, operation: "Bus.setEffect", reason: "wet/dry mix \(wetDryMix) is outside 0...1")
        }
        guard let engine else { return }
        engine.withLock {
            let now = engine.currentFrameLocked
            var state = effectState
            state.from = state.wet(at: now)
            state.to = effect == nil ? 0 : wetDryMix
            state.start = now
            state.end = now + engine.dezipperFrames
            state.effect = effect
            if let parameters { state.parameters = parameters; state.wetDryMix = wetDryMix }
            effectState = state
        }
    }

    /// Loads, reloads or empties this bus's slot for the step at `frame`.
    /// Engine lock held, context current.
    package func stepEffectSlot(at frame: Int64, device: ALDevice) {
        var state = effectState
        defer { effectState = state }
        let wet = state.wet(at: frame)
        if state.effect == nil && wet == 0 {
            if let slot = state.slot, state.loaded != nil {
                device.clearEffect(of: slot)
                state.loaded = nil
            }
            state.parameters = nil
            return
        }
        guard let parameters = state.parameters else { return }
        if state.slot == nil { state.slot = try? device.generateEffectSlot() }
        guard let slot = state.slot else { return }
        if state.loaded != parameters {
            if (try? device.loadEffect(parameters, into: slot)) != nil {
                device.setGain(1, of: slot)
                state.loaded = parameters
            }
        }
    }

    /// The effect slot this bus's voices send to and the send's gain at
    /// `frame`: this bus's, or the nearest parent's that has one (OpenAL 1.19
    /// cannot chain slots, so only the nearest applies).
    package func effectiveEffect(at frame: Int64) -> (slot: ALEffectSlot, wet: Float)? {
        var bus: Bus? = self
        while let b = bus {
            if let slot = b.effectState.slot, b.effectState.loaded != nil {
                return (slot, b.effectState.wet(at: frame))
            }
            bus = b.parent
        }
        return nil
    }
}
