import BackbeatCapture
import BackbeatMedia

/// How the engine's values are written into capture records and read back:
/// times as the game gave them, curves, filters and bus effects. Every read
/// is bounded and throws ``CaptureFormatError`` on a value no writer writes.
package enum EngineCaptureValues {
    /// Writes a time as its value and timescale.
    ///
    /// - Parameters:
    ///   - time: The time.
    ///   - encoder: The record being written.
    package static func encode(_ time: MediaTime, into encoder: inout CaptureEncoder) {
        encoder.append(time.value)
        encoder.append(Int64(time.timescale))
    }

    /// Reads a time written by ``encode(_:into:)-(MediaTime,_)``.
    ///
    /// - Parameter decoder: The record's decoder.
    /// - Returns: The time.
    /// - Throws: ``CaptureFormatError`` for a timescale that is not positive.
    package static func time(from decoder: inout CaptureDecoder) throws(CaptureFormatError) -> MediaTime {
        let value = try decoder.int64()
        let timescale = try decoder.int(in: 1...Int(Int32.max))
        return MediaTime(value: value, timescale: Int32(timescale))
    }

    /// Writes a fade curve as one number.
    ///
    /// - Parameters:
    ///   - curve: The curve.
    ///   - encoder: The record being written.
    package static func encode(_ curve: FadeCurve, into encoder: inout CaptureEncoder) {
        let code: UInt64
        switch curve {
        case .linear: code = 0
        case .equalPower: code = 1
        case .exponential: code = 2
        }
        encoder.append(code)
    }

    /// Reads a fade curve.
    ///
    /// - Parameter decoder: The record's decoder.
    /// - Returns: The curve.
    /// - Throws: ``CaptureFormatError`` for an unknown curve.
    package static func fadeCurve(from decoder: inout CaptureDecoder) throws(CaptureFormatError) -> FadeCurve {
        switch try decoder.uint64() {
        case 0: .linear
        case 1: .equalPower
        case 2: .exponential
        case let other: throw .malformed("fade curve \(other)")
        }
    }

    /// Writes an optional filter: a case number (0 none), then its values.
    ///
    /// - Parameters:
    ///   - filter: The filter, or nil.
    ///   - encoder: The record being written.
    package static func encode(_ filter: AudioFilter?, into encoder: inout CaptureEncoder) {
        switch filter {
        case nil: encoder.append(UInt64(0))
        case .lowPass(let cutoff):
            encoder.append(UInt64(1))
            encoder.append(cutoff)
        case .highPass(let cutoff):
            encoder.append(UInt64(2))
            encoder.append(cutoff)
        case .bandPass(let low, let high):
            encoder.append(UInt64(3))
            encoder.append(low)
            encoder.append(high)
        case .gains(let gain, let gainLF, let gainHF):
            encoder.append(UInt64(4))
            encoder.append(gain)
            encoder.append(gainLF)
            encoder.append(gainHF)
        }
    }

    /// Reads an optional filter.
    ///
    /// - Parameter decoder: The record's decoder.
    /// - Returns: The filter, or nil.
    /// - Throws: ``CaptureFormatError`` for an unknown case.
    package static func filter(from decoder: inout CaptureDecoder) throws(CaptureFormatError) -> AudioFilter? {
        switch try decoder.uint64() {
        case 0: return nil
        case 1: return .lowPass(cutoff: try decoder.float())
        case 2: return .highPass(cutoff: try decoder.float())
        case 3: return .bandPass(lowCutoff: try decoder.float(), highCutoff: try decoder.float())
        case 4: return .gains(gain: try decoder.float(), gainLF: try decoder.float(), gainHF: try decoder.float())
        case let other: throw .malformed("filter \(other)")
        }
    }

    /// Writes a parameter curve: its points, or the ends of a linear one.
    ///
    /// - Parameters:
    ///   - curve: The curve.
    ///   - encoder: The record being written.
    package static func encode(_ curve: ParameterCurve, into encoder: inout CaptureEncoder) {
        if let points = curve.points {
            encoder.append(true)
            encoder.append(UInt64(points.count))
            for point in points {
                encoder.append(point.input)
                encoder.append(point.output)
            }
        } else {
            encoder.append(false)
            encoder.append(curve.from)
            encoder.append(curve.to)
        }
    }

    /// Reads a parameter curve.
    ///
    /// - Parameter decoder: The record's decoder.
    /// - Returns: The curve.
    /// - Throws: ``CaptureFormatError`` for points the curve refuses.
    package static func parameterCurve(from decoder: inout CaptureDecoder) throws(CaptureFormatError) -> ParameterCurve
    {
        guard try decoder.bool() else {
            return .linear(from: try decoder.finiteFloat(), to: try decoder.finiteFloat())
        }
        let count = try decoder.count(maximum: 4_096, minimumBytesEach: 8)
        var points: [(Float, Float)] = []
        points.reserveCapacity(count)
        for _ in 0..<count { points.append((try decoder.finiteFloat(), try decoder.finiteFloat())) }
        do {
            return try ParameterCurve(points: points)
        } catch {
            throw .malformed("a parameter curve's points are not increasing")
        }
    }

    /// Writes an optional bus effect: a case number (0 none), then its values.
    /// A bus reverb is written as case 11 without its room (see ``busEffect(from:)``).
    ///
    /// - Parameters:
    ///   - effect: The effect, or nil.
    ///   - encoder: The record being written.
    package static func encode(_ effect: BusEffect?, into encoder: inout CaptureEncoder) {
        guard let effect else {
            encoder.append(UInt64(0))
            return
        }
        switch effect {
        case .echo(let delay, let feedback, let damping):
            encoder.append(UInt64(1))
            encode(delay, into: &encoder)
            encoder.append(feedback)
            encoder.append(damping)
        case .ringModulator(let frequency):
            encoder.append(UInt64(2))
            encoder.append(frequency)
        case .equalizer(let low, let mid1, let mid2, let high):
            encoder.append(UInt64(3))
            for gain in [low, mid1, mid2, high] { encoder.append(gain) }
        case .compressor(let enabled):
            encoder.append(UInt64(4))
            encoder.append(enabled)
        case .distortion(let edge, let gain, let lowPass, let center, let bandwidth):
            encoder.append(UInt64(5))
            for value in [edge, gain, lowPass, center, bandwidth] { encoder.append(value) }
        case .pitchShifter(let semitones):
            encoder.append(UInt64(6))
            encoder.append(semitones)
        case .frequencyShifter(let frequency, let direction):
            encoder.append(UInt64(7))
            encoder.append(frequency)
            encoder.append(direction.rawValue)
        case .chorus(let waveform, let phase, let rate, let depth, let feedback, let delay):
            encoder.append(UInt64(8))
            encodeSweep(waveform, phase, rate, depth, feedback, delay, into: &encoder)
        case .flanger(let waveform, let phase, let rate, let depth, let feedback, let delay):
            encoder.append(UInt64(9))
            encodeSweep(waveform, phase, rate, depth, feedback, delay, into: &encoder)
        case .autowah(let attack, let release, let resonance, let peakGain):
            encoder.append(UInt64(10))
            encode(attack, into: &encoder)
            encode(release, into: &encoder)
            encoder.append(resonance)
            encoder.append(peakGain)
        case .reverb:
            encoder.append(UInt64(11))
        }
    }

    private static func encodeSweep(
        _ waveform: BusEffect.Waveform, _ phase: Float, _ rate: Float, _ depth: Float, _ feedback: Float,
        _ delay: MediaTime, into encoder: inout CaptureEncoder
    ) {
        encoder.append(waveform.rawValue)
        for value in [phase, rate, depth, feedback] { encoder.append(value) }
        encode(delay, into: &encoder)
    }

    /// Reads an optional bus effect. A bus reverb reads as
    /// ``BusEffectRead/reverbNotCaptured``: its room is not in the capture.
    ///
    /// - Parameter decoder: The record's decoder.
    /// - Returns: The effect.
    /// - Throws: ``CaptureFormatError`` for an unknown case or value.
    package static func busEffect(from decoder: inout CaptureDecoder) throws(CaptureFormatError) -> BusEffectRead {
        func waveform() throws(CaptureFormatError) -> BusEffect.Waveform {
            let raw = try decoder.string(maximumBytes: 16)
            guard let value = BusEffect.Waveform(rawValue: raw) else { throw .malformed("waveform \(raw)") }
            return value
        }
        let code = try decoder.uint64()
        switch code {
        case 0: return .effect(nil)
        case 1:
            return .effect(
                .echo(delay: try time(from: &decoder), feedback: try decoder.float(), damping: try decoder.float()))
        case 2: return .effect(.ringModulator(frequency: try decoder.float()))
        case 3:
            return .effect(
                .equalizer(
                    lowGain: try decoder.float(), mid1Gain: try decoder.float(), mid2Gain: try decoder.float(),
                    highGain: try decoder.float()))
        case 4: return .effect(.compressor(enabled: try decoder.bool()))
        case 5:
            return .effect(
                .distortion(
                    edge: try decoder.float(), gain: try decoder.float(), lowPassCutoff: try decoder.float(),
                    eqCenter: try decoder.float(), eqBandwidth: try decoder.float()))
        case 6: return .effect(.pitchShifter(semitones: try decoder.float()))
        case 7:
            let frequency = try decoder.float()
            let raw = try decoder.string(maximumBytes: 16)
            guard let direction = BusEffect.FrequencyShiftDirection(rawValue: raw) else {
                throw .malformed("direction \(raw)")
            }
            return .effect(.frequencyShifter(frequency: frequency, direction: direction))
        case 8, 9:
            let shape = try waveform()
            let (phase, rate, depth) = (try decoder.float(), try decoder.float(), try decoder.float())
            let (feedback, delay) = (try decoder.float(), try time(from: &decoder))
            return .effect(
                code == 8
                    ? .chorus(waveform: shape, phase: phase, rate: rate, depth: depth, feedback: feedback, delay: delay)
                    : .flanger(
                        waveform: shape, phase: phase, rate: rate, depth: depth, feedback: feedback, delay: delay))
        case 10:
            return .effect(
                .autowah(
                    attackTime: try time(from: &decoder), releaseTime: try time(from: &decoder),
                    resonance: try decoder.float(), peakGain: try decoder.float()))
        case 11: return .reverbNotCaptured
        default: throw .malformed("bus effect \(code)")
        }
    }

    /// What a bus effect record holds.
    package enum BusEffectRead {
        /// The effect (nil: none).
        case effect(BusEffect?)
        /// A bus reverb, whose room the capture does not hold.
        case reverbNotCaptured
    }
}
