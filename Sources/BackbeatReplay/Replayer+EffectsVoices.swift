import BackbeatCapture
import BackbeatEffects
import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a replay keeps between the effects' records: the move batches'
/// unpacking state and the voices of the last batch.
final class EffectsReplayState {
    var batches = MoveBatchCoding()
    /// The replay's voices of the last batch, and which of the batch's entries they are
    /// (a voice started before the capture began has none).
    var batchVoices: [Voice] = []
    var batchRows: [Int] = []
    /// Game parameters already warned about (a binding to one no record made).
    var missingParameters: Set<String> = []
}

extension Replayer {
    /// ``CaptureKind/effectsVoicePlay``: plays the sound as the game did.
    func replayPlay(_ decoder: inout CaptureDecoder, _ record: CaptureRecord) throws {
        typealias Coding = EffectsCaptureCoding
        let sound = try object(try decoder.uint32(), as: SoundEffect.self, in: record)
        let raw = try decoder.uint64()
        let time = try Coding.optionalTime(&decoder)
        let volume = try decoder.float()
        let pan = try decoder.float()
        let position = try Coding.optionalPoint(&decoder)
        let rate = try decoder.float()
        let looping = try Coding.looping(&decoder)
        let priority = try decoder.int()
        let bus = try Coding.bus(&decoder, engine: engine)
        voices[raw] = sound.play(
            at: time, volume: volume, pan: pan, position: position, rate: rate, looping: looping, priority: priority,
            bus: bus)
        note("voice \(sound.name)")
    }

    /// ``CaptureKind/effectsVoiceChange``: the same call on the voice (a
    /// voice started before the capture began is not in it: skipped).
    func replayVoiceChange(_ decoder: inout CaptureDecoder, _ record: CaptureRecord) throws {
        typealias Coding = EffectsCaptureCoding
        let raw = try decoder.uint64()
        let code = try decoder.fixed(UInt8.self)
        guard let change = VoiceChange(rawValue: code) else {
            throw CaptureFormatError.malformed("voice change \(code)")
        }
        guard let voice = voices[raw] as? Voice else { return }
        switch change {
        case .stop: voice.stop()
        case .pause: try? voice.pause()
        case .resume: try? voice.resume()
        case .volume: voice.volume = try decoder.float()
        case .pan: voice.pan = try decoder.float()
        case .rate: voice.rate = try decoder.float()
        case .position: voice.position = try Coding.optionalPoint(&decoder)
        case .velocity: voice.velocity = try Coding.point(&decoder)
        case .direction: voice.direction = try Coding.optionalPoint(&decoder)
        case .cone: voice.cone = try Coding.cone(&decoder)
        case .distance:
            voice.distanceAttenuationParameters = try decoder.optional {
                (d: inout CaptureDecoder) throws(CaptureFormatError) in try Coding.distance(&d)
            }
        case .radius: voice.sourceRadius = try decoder.float()
        case .rendering:
            let index = Int(try decoder.fixed(UInt8.self))
            guard index < AudioRenderingAlgorithm.allCases.count else {
                throw CaptureFormatError.malformed("rendering algorithm \(index)")
            }
            voice.renderingAlgorithm = AudioRenderingAlgorithm.allCases[index]
        case .volumeGlide, .rateGlide, .panGlide:
            let value = try decoder.float()
            let duration = try Coding.optionalTime(&decoder)
            let curve = try Coding.curve(&decoder)
            switch change {
            case .volumeGlide: voice.setVolume(value, over: duration, curve: curve)
            case .rateGlide: voice.setRate(value, over: duration, curve: curve)
            default: voice.setPan(value, over: duration, curve: curve)
            }
        case .reverbBlend, .obstruction, .occlusion:
            let value = try decoder.float()
            let duration = try Coding.optionalTime(&decoder)
            switch change {
            case .reverbBlend: voice.setReverbBlend(value, over: duration)
            case .obstruction: voice.setObstruction(value, over: duration)
            default: voice.setOcclusion(value, over: duration)
            }
        case .filter:
            let filter = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
                try Coding.filter(&d)
            }
            voice.setFilter(filter, over: try Coding.optionalTime(&decoder))
        case .moveAlong:
            let count = try decoder.count(maximum: 1_000_000, minimumBytesEach: 12)
            var path: [Audio3DPoint] = []
            for _ in 0..<count { path.append(try Coding.point(&decoder)) }
            try voice.move(along: path, duration: try Coding.time(&decoder))
        case .moveTo:
            let point = try Coding.point(&decoder)
            try voice.move(to: point, duration: try Coding.time(&decoder))
        case .bindRate, .bindVolume, .bindFilterCutoff:
            let name = try decoder.string()
            let json = try decoder.string(maximumBytes: 1 << 20)
            let curve = try JSONDecoder().decode(ParameterCurve.self, from: Data(json.utf8))
            guard
                let parameter = objects.values.lazy.compactMap({ $0 as? GameParameter }).first(where: {
                    $0.name == name
                })
            else {
                if effectsReplay.missingParameters.insert(name).inserted {
                    warn("a voice is bound to game parameter \(name), which no record made: the binding is skipped")
                }
                return
            }
            switch change {
            case .bindRate: voice.bindRate(to: parameter, curve: curve)
            case .bindVolume: voice.bindVolume(to: parameter, curve: curve)
            default: voice.bindFilterCutoff(to: parameter, curve: curve)
            }
        }
    }

    /// ``CaptureKind/effectsVoiceMoveBatch``: unpacks the positions and moves the same voices.
    func replayMoveBatch(_ decoder: inout CaptureDecoder) throws {
        let state = effectsReplay
        let (ids, positions) = try state.batches.decode(&decoder)
        if let ids {
            state.batchVoices = []
            state.batchRows = []
            for (row, raw) in ids.enumerated() {
                guard let voice = voices[raw] as? Voice else { continue }
                state.batchVoices.append(voice)
                state.batchRows.append(row)
            }
        }
        guard !state.batchVoices.isEmpty else { return }
        if state.batchRows.count == positions.count {
            try engine.moveVoices(state.batchVoices, to: positions)
        } else {
            try engine.moveVoices(state.batchVoices, to: state.batchRows.map { positions[$0] })
        }
    }
}
