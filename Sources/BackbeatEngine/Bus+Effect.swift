import BackbeatMedia
import BackbeatOpenAL
import BackbeatSupport

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
    /// OpenAL's compressor, on or off (OpenAL Soft 1.19 has no threshold or
    /// ratio): an automatic gain control that pulls the wet signal's level
    /// toward full scale, lowering loud passages and raising quiet ones
    /// (by at most 6 dB either way). Off passes the wet signal unchanged.
    case compressor(enabled: Bool = true)
    /// A waveshaping distortion: `edge` (0...1) is how hard it clips, `gain`
    /// (-40...0 dB) the output level, then a low-pass at `lowPassCutoff` and a
    /// band-pass around `eqCenter` `eqBandwidth` wide (each 80...24000 Hz).
    /// A pure tone gains odd harmonics (3f, 5f...).
    case distortion(
        edge: Float = 0.2, gain: Float = -26, lowPassCutoff: Float = 8_000, eqCenter: Float = 3_600,
        eqBandwidth: Float = 3_600)
    /// A pitch shifter: every frequency times 2^(semitones/12), with
    /// `semitones` -12.5...+12.5 in steps of a cent (EFX's coarse tune in
    /// semitones plus fine tune in cents).
    case pitchShifter(semitones: Float = 12)
    /// A frequency shifter: every frequency moves by `frequency` Hz
    /// (0...24000), up or down (not a ratio, so harmonics stop being harmonic).
    case frequencyShifter(frequency: Float, direction: FrequencyShiftDirection = .up)
    /// A chorus: copies `delay` late (0...0.016 s), the delay swept by a
    /// low-frequency oscillator of `waveform` at `rate` (0...10 Hz) over
    /// `depth` (0...1) of it, the right channel's sweep `phase` degrees
    /// (-180...180, whole degrees) apart from the left's; `feedback` (-1...1)
    /// of the output is fed back. Mixed with the dry signal (a wet/dry mix
    /// below 1), it thickens a sound.
    case chorus(
        waveform: Waveform = .triangle, phase: Float = 90, rate: Float = 1.1, depth: Float = 0.1,
        feedback: Float = 0.25, delay: MediaTime = MediaTime(seconds: 0.016))
    /// A flanger: the chorus's sweep on a short delay (0...0.004 s), so the
    /// wet signal mixed with the dry one is a comb filter whose notches move.
    /// Parameters as ``chorus(waveform:phase:rate:depth:feedback:delay:)``.
    case flanger(
        waveform: Waveform = .triangle, phase: Float = 0, rate: Float = 0.27, depth: Float = 1,
        feedback: Float = -0.5, delay: MediaTime = MediaTime(seconds: 0.002))
    /// An auto-wah: a resonant band-pass whose centre rises with the
    /// signal's level, following it over `attackTime` and falling over
    /// `releaseTime` (each 0.0001...1 s); `resonance` (2...1000) is how sharp
    /// the peak is and `peakGain` (-90...+90 dB) its gain.
    case autowah(
        attackTime: MediaTime = MediaTime(seconds: 0.06), releaseTime: MediaTime = MediaTime(seconds: 0.06),
        resonance: Float = 1_000, peakGain: Float = 21)
    /// A reverb of the bus's own, with the environment reverb's parameters:
    /// any of the 113 presets (`try AudioEnvironmentReverbParameters(preset: "hangar")`)
    /// or the room set parameter by parameter; `level` is the slot's gain and a
    /// disabled reverb is silent. Its values are clamped to EFX's ranges as
    /// ``AudioEnvironmentReverbParameters`` does, so it never throws.
    case reverb(AudioEnvironmentReverbParameters)

    /// The low-frequency oscillator's shape for ``BusEffect/chorus(waveform:phase:rate:depth:feedback:delay:)``
    /// and ``BusEffect/flanger(waveform:phase:rate:depth:feedback:delay:)``.
    public enum Waveform: String, CaseIterable, Codable, Sendable {
        /// A sine.
        case sine
        /// A triangle (EFX's default).
        case triangle
    }

    /// Which way ``BusEffect/frequencyShifter(frequency:direction:)`` moves frequencies.
    public enum FrequencyShiftDirection: String, CaseIterable, Codable, Sendable {
        /// f becomes f - shift.
        case down
        /// f becomes f + shift.
        case up
        /// No shift.
        case off
    }

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
        case .compressor(let enabled):
            return .compressor(on: enabled)
        case .distortion(let edge, let level, let cutoff, let center, let bandwidth):
            let db = try check(level, -40...0, "distortion gain (dB)")
            return .distortion(
                edge: try check(edge, 0...1, "distortion edge"),
                gain: min(max(Float(pow(10.0, Double(db) / 20)), 0.01), 1),
                lowPassCutoff: try check(cutoff, 80...24_000, "distortion low-pass cutoff (Hz)"),
                eqCenter: try check(center, 80...24_000, "distortion EQ center (Hz)"),
                eqBandwidth: try check(bandwidth, 80...24_000, "distortion EQ bandwidth (Hz)"))
        case .pitchShifter(let semitones):
            let cents = Int32((try check(semitones, -12.5...12.5, "pitch shift (semitones)") * 100).rounded())
            // Coarse -12...12 semitones, fine -50...50 cents.
            let coarse = min(max((Float(cents) / 100).rounded(), -12), 12)
            let fine = cents - Int32(coarse) * 100
            return .pitchShifter(coarseTune: Int32(coarse), fineTune: min(max(fine, -50), 50))
        case .frequencyShifter(let frequency, let direction):
            let code: Int32
            switch direction {
            case .down: code = 0
            case .up: code = 1
            case .off: code = 2
            }
            return .frequencyShifter(
                frequency: try check(frequency, 0...24_000, "frequency shift (Hz)"), leftDirection: code,
                rightDirection: code)
        case .chorus(let waveform, let phase, let rate, let depth, let feedback, let delay):
            return .chorus(
                waveform: waveform == .sine ? 0 : 1,
                phase: Int32(try check(phase, -180...180, "chorus phase (degrees)").rounded()),
                rate: try check(rate, 0...10, "chorus rate (Hz)"), depth: try check(depth, 0...1, "chorus depth"),
                feedback: try check(feedback, -1...1, "chorus feedback"),
                delay: try check(Float(delay.seconds), 0...0.016, "chorus delay (s)"))
        case .flanger(let waveform, let phase, let rate, let depth, let feedback, let delay):
            return .flanger(
                waveform: waveform == .sine ? 0 : 1,
                phase: Int32(try check(phase, -180...180, "flanger phase (degrees)").rounded()),
                rate: try check(rate, 0...10, "flanger rate (Hz)"), depth: try check(depth, 0...1, "flanger depth"),
                feedback: try check(feedback, -1...1, "flanger feedback"),
                delay: try check(Float(delay.seconds), 0...0.004, "flanger delay (s)"))
        case .autowah(let attack, let release, let resonance, let peakGain):
            let db = try check(peakGain, -90...90, "autowah peak gain (dB)")
            return .autowah(
                attackTime: try check(Float(attack.seconds), 0.0001...1, "autowah attack time (s)"),
                releaseTime: try check(Float(release.seconds), 0.0001...1, "autowah release time (s)"),
                resonance: try check(resonance, 2...1_000, "autowah resonance"),
                peakGain: min(max(Float(pow(10.0, Double(db) / 20)), 0.00003), 31_621))
        case .reverb(let reverb):
            return .reverb(reverb.properties.clamped, slotGain: reverb.slotGain)
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
    ///
    /// - Parameters:
    ///   - effect: The effect; nil removes the one there.
    ///   - wetDryMix: How much goes through the effect, 0...1.
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
            if let parameters {
                state.parameters = parameters
                state.wetDryMix = wetDryMix
            }
            effectState = state
            recordLocked(.busEffect) { encoder in
                EngineCaptureValues.encode(effect, into: &encoder)
                encoder.append(wetDryMix)
            }
        }
    }

    /// Loads, reloads or empties this bus's slot for the step at `frame`.
    /// Engine lock held, context current.
    package func stepEffectSlot(at frame: Int64, device: ALDevice) {
        preconditionEngineLocked()
        var state = effectState
        defer { effectState = state }
        // Active mix snapshots may set the effect's parameters and mix (Bus+Snapshot.swift).
        let snapshot = snapshotEffect(at: frame)
        let wet = snapshot?.wet ?? state.wet(at: frame)
        if (snapshot?.effect ?? state.effect) == nil && wet == 0 {
            if let slot = state.slot, state.loaded != nil {
                device.clearEffect(of: slot)
                state.loaded = nil
            }
            state.parameters = nil
            return
        }
        guard let parameters = (snapshot?.effect).flatMap({ try? $0.parameters() }) ?? state.parameters else { return }
        if state.slot == nil { state.slot = try? device.generateEffectSlot() }
        guard let slot = state.slot else { return }
        if state.loaded != parameters {
            if (try? device.loadEffect(parameters, into: slot)) != nil {
                device.setGain(parameters.slotGain, of: slot)
                state.loaded = parameters
            }
        }
    }

    /// The effect slot this bus's voices send to and the send's gain at
    /// `frame`: this bus's, or the nearest parent's that has one (OpenAL 1.19
    /// cannot chain slots, so only the nearest applies).
    package func effectiveEffect(at frame: Int64) -> (slot: ALEffectSlot, wet: Float)? {
        preconditionEngineLocked()
        var bus: Bus? = self
        while let b = bus {
            if let slot = b.effectState.slot, b.effectState.loaded != nil {
                return (slot, b.snapshotEffect(at: frame)?.wet ?? b.effectState.wet(at: frame))
            }
            bus = b.parent
        }
        return nil
    }
}
