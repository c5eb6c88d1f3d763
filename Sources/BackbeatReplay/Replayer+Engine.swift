import BackbeatCapture
import BackbeatEffects
import BackbeatEngine
import BackbeatMedia

extension Replayer {
    /// Applies a record of ``CaptureKind/engineRange``.
    ///
    /// - Parameter record: The record.
    /// - Throws: When its payload does not decode or the call it replays fails.
    func applyEngine(_ record: CaptureRecord) throws {
        var decoder = record.decoder
        do {
            switch record.kind {
            case .shutdown:
                markShutDown()
                note("shutdown")
            case .shutdownFade:
                let frames = try decoder.int64()
                guard frames > 0, frames <= Int64(opening.sampleRate) * 3600 else {
                    throw CaptureFormatError.malformed("a shutdown fade of \(frames) frames")
                }
                _ = engine.withLock { engine.beginShutdownFadeLocked(frames: frames) }
            case .renderSplit:
                // The replay split its render at this frame to get here: nothing more to do.
                break
            case .busDeclare: try declareBus(&decoder, record)
            case .parameterDeclare: try declareParameter(&decoder, record)
            case .parameterValue:
                let parameter = try object(try decoder.uint32(), as: GameParameter.self, in: record)
                parameter.value = try decoder.float()
            case .duckRelease:
                try object(try decoder.uint32(), as: Duck.self, in: record).release()
            case .busDuck, .busDuckUntil:
                let id = try decoder.uint32()
                let bus = try object(try decoder.uint32(), as: Bus.self, in: record)
                let decibels = try decoder.float()
                let attack = try EngineCaptureValues.time(from: &decoder)
                let release = try EngineCaptureValues.time(from: &decoder)
                var voice: Voice?
                if record.kind == .busDuckUntil {
                    let raw = try decoder.uint64()
                    voice = voices[raw] as? Voice
                    if voice == nil {
                        warn(
                            "bus \(bus.name)'s duck at \(ReplaySummary.format(seconds: seconds(of: record.frame))) s "
                                + "waits for a voice the capture did not start: it is released only by hand")
                    }
                }
                objects[id] = bus.duck(by: decibels, attack: attack, release: release, until: voice)
                note("bus \(bus.name) duck")
            case .busVolume, .busFade, .busMute, .busPause, .busSolo, .busFilter, .busEffect, .busFilterBinding:
                try applyBus(&decoder, record)
            default: skipUnknown(record)
            }
        } catch let error as CaptureFormatError {
            throw damaged(record, error)
        }
    }

    private func declareBus(_ decoder: inout CaptureDecoder, _ record: CaptureRecord) throws {
        let id = try decoder.uint32()
        let builtin = try decoder.uint64()
        let name = try decoder.string(maximumBytes: 1_024)
        let parentID = try decoder.uint32()
        let bus: Bus
        switch builtin {
        case 0:
            let parent = parentID == 0 ? nil : try object(parentID, as: Bus.self, in: record)
            bus = engine.makeBus(named: name, parent: parent)
            note("bus \(name)")
        case 1: bus = engine.masterBus
        case 2: bus = engine.musicBus
        case 3: bus = engine.effectsBus
        default: throw CaptureFormatError.malformed("bus kind \(builtin)")
        }
        objects[id] = bus
        if let solo = options.soloBus, solo == name { soloBusIfMade(name) }
    }

    private func declareParameter(_ decoder: inout CaptureDecoder, _ record: CaptureRecord) throws {
        let id = try decoder.uint32()
        let name = try decoder.string(maximumBytes: 1_024)
        let bottom = try decoder.finiteFloat()
        let top = try decoder.finiteFloat()
        let value = try decoder.float()
        let heard = try decoder.finiteFloat()
        let slew = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in try d.float() }
        guard bottom <= top else { throw CaptureFormatError.malformed("parameter range \(bottom)...\(top)") }
        let parameter = try GameParameter(
            name: name, range: bottom...top, initialValue: heard, slewPerSecond: slew, engine: engine)
        if value != heard { parameter.value = value }
        objects[id] = parameter
    }

    private func applyBus(_ decoder: inout CaptureDecoder, _ record: CaptureRecord) throws {
        let bus = try object(try decoder.uint32(), as: Bus.self, in: record)
        switch record.kind {
        case .busVolume: bus.volume = try decoder.float()
        case .busFade:
            let target = try decoder.float()
            let duration = try EngineCaptureValues.time(from: &decoder)
            bus.fade(to: target, duration: duration, curve: try EngineCaptureValues.fadeCurve(from: &decoder))
            note("bus \(bus.name) fade")
        case .busMute:
            bus.isMuted = try decoder.bool()
            note("bus \(bus.name) \(bus.isMuted ? "muted" : "unmuted")")
        case .busPause: bus.isPaused = try decoder.bool()
        case .busSolo:
            let soloed = try decoder.bool()
            // A replay soloing one bus keeps its own solo.
            if options.soloBus == nil { bus.isSoloed = soloed }
        case .busFilter:
            let filter = try EngineCaptureValues.filter(from: &decoder)
            bus.setFilter(filter, over: try EngineCaptureValues.time(from: &decoder))
        case .busEffect:
            let read = try EngineCaptureValues.busEffect(from: &decoder)
            let mix = try decoder.float()
            switch read {
            case .effect(let effect): try bus.setEffect(effect, wetDryMix: mix)
            case .reverbNotCaptured: warn("bus \(bus.name)'s reverb effect is not in the capture; replayed without it")
            }
        case .busFilterBinding:
            let parameter = try object(try decoder.uint32(), as: GameParameter.self, in: record)
            bus.bindFilterCutoff(to: parameter, curve: try EngineCaptureValues.parameterCurve(from: &decoder))
        default: skipUnknown(record)
        }
    }
}
