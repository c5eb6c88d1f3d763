import BackbeatCapture
import BackbeatEngine
import BackbeatMedia

extension EffectsCaptureCoding {
    /// Writes a bus effect (a snapshot's): its case's number, then its values in order.
    ///
    /// - Parameters:
    ///   - effect: The effect.
    ///   - encoder: Where to write it.
    package static func encode(_ effect: BusEffect, into encoder: inout CaptureEncoder) {
        func floats(_ code: UInt8, _ values: Float...) {
            encoder.appendFixed(code)
            for value in values { encoder.append(value) }
        }
        switch effect {
        case .echo(let delay, let feedback, let damping):
            floats(0, feedback, damping)
            encode(delay, into: &encoder)
        case .ringModulator(let frequency): floats(1, frequency)
        case .equalizer(let low, let mid1, let mid2, let high): floats(2, low, mid1, mid2, high)
        case .compressor(let enabled):
            encoder.appendFixed(UInt8(3))
            encoder.append(enabled)
        case .distortion(let edge, let gain, let lowPass, let center, let bandwidth):
            floats(4, edge, gain, lowPass, center, bandwidth)
        case .pitchShifter(let semitones): floats(5, semitones)
        case .frequencyShifter(let frequency, let direction):
            floats(6, frequency)
            encoder.append(direction.rawValue)
        case .chorus(let waveform, let phase, let rate, let depth, let feedback, let delay):
            floats(7, phase, rate, depth, feedback)
            encoder.append(waveform.rawValue)
            encode(delay, into: &encoder)
        case .flanger(let waveform, let phase, let rate, let depth, let feedback, let delay):
            floats(8, phase, rate, depth, feedback)
            encoder.append(waveform.rawValue)
            encode(delay, into: &encoder)
        case .autowah(let attack, let release, let resonance, let peakGain):
            floats(9, resonance, peakGain)
            encode(attack, into: &encoder)
            encode(release, into: &encoder)
        case .reverb(let reverb):
            encoder.appendFixed(UInt8(10))
            encode(reverb, into: &encoder)
        }
    }

    /// Reads a bus effect.
    ///
    /// - Parameter decoder: The record's decoder.
    package static func effect(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) -> BusEffect {
        let code = try decoder.fixed(UInt8.self)
        func waveform() throws(CaptureFormatError) -> BusEffect.Waveform {
            let name = try decoder.string(maximumBytes: 32)
            guard let value = BusEffect.Waveform(rawValue: name) else { throw .malformed("waveform \(name)") }
            return value
        }
        switch code {
        case 0:
            let (feedback, damping) = (try decoder.float(), try decoder.float())
            return .echo(delay: try time(&decoder), feedback: feedback, damping: damping)
        case 1: return .ringModulator(frequency: try decoder.float())
        case 2:
            return .equalizer(
                lowGain: try decoder.float(), mid1Gain: try decoder.float(), mid2Gain: try decoder.float(),
                highGain: try decoder.float())
        case 3: return .compressor(enabled: try decoder.bool())
        case 4:
            return .distortion(
                edge: try decoder.float(), gain: try decoder.float(), lowPassCutoff: try decoder.float(),
                eqCenter: try decoder.float(), eqBandwidth: try decoder.float())
        case 5: return .pitchShifter(semitones: try decoder.float())
        case 6:
            let frequency = try decoder.float()
            let name = try decoder.string(maximumBytes: 32)
            guard let direction = BusEffect.FrequencyShiftDirection(rawValue: name) else {
                throw .malformed("shift direction \(name)")
            }
            return .frequencyShifter(frequency: frequency, direction: direction)
        case 7, 8:
            let (phase, rate, depth, feedback) = (
                try decoder.float(), try decoder.float(), try decoder.float(), try decoder.float()
            )
            let shape = try waveform()
            let delay = try time(&decoder)
            return code == 7
                ? .chorus(waveform: shape, phase: phase, rate: rate, depth: depth, feedback: feedback, delay: delay)
                : .flanger(waveform: shape, phase: phase, rate: rate, depth: depth, feedback: feedback, delay: delay)
        case 9:
            let (resonance, peakGain) = (try decoder.float(), try decoder.float())
            return .autowah(
                attackTime: try time(&decoder), releaseTime: try time(&decoder), resonance: resonance,
                peakGain: peakGain)
        case 10: return .reverb(try reverb(&decoder))
        default: throw .malformed("bus effect \(code)")
        }
    }
}
