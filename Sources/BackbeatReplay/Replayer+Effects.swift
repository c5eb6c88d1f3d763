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

extension Replayer {
    /// Applies a record of ``CaptureKind/effectsRange``: makes the sounds,
    /// banks and events it declares, and makes the call the game made.
    ///
    /// - Parameter record: The record.
    /// - Throws: When its payload does not decode or the call it replays
    ///   fails; a sound file that is missing is ``BackbeatError/Code/fileNotFound``
    ///   naming the sound and its path in the capture.
    func applyEffects(_ record: CaptureRecord) throws {
        var decoder = record.decoder
        do {
            switch record.kind {
            case .effectsSoundDeclared: try declareSound(&decoder)
            case .effectsSoundSetting:
                let sound = try object(try decoder.uint32(), as: SoundEffect.self, in: record)
                switch try decoder.fixed(UInt8.self) {
                case 0:
                    sound.maximumInstances = try decoder.optional {
                        (d: inout CaptureDecoder) throws(CaptureFormatError) in try d.int()
                    }
                case 1: sound.minimumRetriggerInterval = try EffectsCaptureCoding.time(&decoder)
                case let other: throw CaptureFormatError.malformed("sound setting \(other)")
                }
            case .effectsSoundPreload:
                try object(try decoder.uint32(), as: SoundEffect.self, in: record).preload { _ in }
            case .effectsVoicePlay: try replayPlay(&decoder, record)
            case .effectsVoiceChange: try replayVoiceChange(&decoder, record)
            case .effectsVoiceMoveBatch: try replayMoveBatch(&decoder)
            case .effectsEventDeclared: try declareEvent(&decoder, record)
            case .effectsEventSetting: try replayEventSetting(&decoder, record)
            case .effectsEventPlay: try replayEventPlay(&decoder, record)
            case .effectsEventReseed:
                let event = try object(try decoder.uint32(), as: SoundEvent.self, in: record)
                event.reseed(try decoder.fixed(UInt64.self))
            case .effectsBankDeclared: try declareBank(&decoder)
            case .effectsListener: try replayListener(&decoder)
            case .effectsListenerMove:
                let point = try EffectsCaptureCoding.point(&decoder)
                let orientation = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
                    Audio3DVectorOrientation(
                        forward: try EffectsCaptureCoding.point(&d), up: try EffectsCaptureCoding.point(&d))
                }
                engine.moveListener(to: point, orientation: orientation)
            case .effectsReverb:
                let reverb = try EffectsCaptureCoding.reverb(&decoder)
                let duration = try EffectsCaptureCoding.optionalTime(&decoder)
                engine.setReverbParameters(reverb, over: duration, curve: try EffectsCaptureCoding.curve(&decoder))
                note("reverb")
            case .effectsReverbZones:
                engine.reverbZones = try EffectsCaptureCoding.zones(&decoder)
                note("reverb zones")
            case .effectsSnapshotActivate:
                let id = try decoder.uint32()
                let snapshot = try EffectsCaptureCoding.snapshot(&decoder)
                let duration = try EffectsCaptureCoding.time(&decoder)
                let curve = try EffectsCaptureCoding.curve(&decoder)
                objects[id] = try engine.activate(
                    snapshot, over: duration, curve: curve, priority: try decoder.int())
                note("snapshot \(snapshot.name)")
            case .effectsSnapshotRelease:
                let active = try object(try decoder.uint32(), as: ActiveMixSnapshot.self, in: record)
                let duration = try EffectsCaptureCoding.time(&decoder)
                try active.release(over: duration, curve: try EffectsCaptureCoding.curve(&decoder))
                note("snapshot \(active.snapshot.name) released")
            case .effectsCacheBudget: engine.effectCacheBudget = try decoder.int()
            case .effectsState: try engine.restoreEffectsCaptureState(&decoder)
            case .effectsAcousticFilters, .effectsAcousticGains, .effectsRoomReverbs, .effectsAcousticVoice:
                try applyAcoustics(record, &decoder)
            default: skipUnknown(record)
            }
        } catch let error as CaptureFormatError {
            throw damaged(record, error)
        }
    }

    /// ``CaptureKind/effectsSoundDeclared``: makes the sound again.
    private func declareSound(_ decoder: inout CaptureDecoder) throws {
        let id = try decoder.uint32()
        let name = try decoder.string()
        let sound: SoundEffect
        let origin = try SoundCaptureOrigin(from: &decoder)
        let kept = try Self.keptBytes(&decoder)
        switch origin {
        case .file(let fingerprint, let loopPoints):
            let asset = try soundAsset(fingerprint, kept: kept, loopPoints: loopPoints, what: "sound \"\(name)\"")
            sound = SoundEffect(asset: asset, engine: engine)
        case .pcm(let rate, let channels, let loopPoints, let samples):
            let buffer = try PCMBuffer(format: AudioFormat(sampleRate: rate, channelCount: channels), floats: samples)
            sound = try SoundEffect(buffer: buffer, name: name, loopPoints: loopPoints, engine: engine)
        case .bytes(_, let loopPoints, let bytes):
            sound = SoundEffect(
                asset: AudioAsset(data: Data(bytes), name: name, loopPoints: loopPoints), engine: engine)
        case .tooLarge(let url, let size, _):
            throw BackbeatError(
                .invalidArgument, operation: "replay",
                reason: "sound \"\(name)\" (\(url)) was made in memory, \(size) bytes: too large for the capture "
                    + "to keep, so it cannot be replayed")
        }
        objects[id] = sound
    }

    /// Fails when a file the capture names is missing; warns once when its content changed.
    ///
    /// - Parameters:
    ///   - fingerprint: What the capture recorded of it.
    ///   - what: How to name it in the message, such as `sound "snare.wav"`.
    func checkFile(_ fingerprint: FileFingerprint, what: String) throws {
        let url = URL(fileURLWithPath: fingerprint.path)
        guard FileManager.default.fileExists(atPath: fingerprint.path) else {
            throw BackbeatError(
                .fileNotFound, operation: "replay", url: url,
                reason: "\(what) at \(fingerprint.path), named in the capture, is missing")
        }
        guard let now = try? FileFingerprint(of: url) else { return }
        if now.size != fingerprint.size || now.hash != fingerprint.hash {
            warn("\(what) at \(fingerprint.path) changed since the capture; replaying its new content")
        }
    }

    /// A sound file as the replay plays it: the bytes the capture kept (the
    /// file as the game had it: it followed its file, which may have changed
    /// since), else the file as it is now, checked with ``checkFile(_:what:)``.
    ///
    /// - Parameters:
    ///   - fingerprint: What the capture recorded of the file.
    ///   - kept: The bytes the capture kept of it, or nil.
    ///   - loopPoints: The sound's loop region set through the API, or nil.
    ///   - what: How to name it in a message, such as `sound "snare.wav"`.
    /// - Throws: When the capture kept no bytes and the file is missing.
    func soundAsset(
        _ fingerprint: FileFingerprint, kept: [UInt8]?, loopPoints: LoopPoints?, what: String
    ) throws -> AudioAsset {
        let url = URL(fileURLWithPath: fingerprint.path)
        if let kept { return AudioAsset(source: Data(kept), url: url, loopPoints: loopPoints) }
        try checkFile(fingerprint, what: what)
        return AudioAsset(url: url, loopPoints: loopPoints)
    }

    /// ``CaptureKind/effectsBankDeclared``: loads the bank again.
    private func declareBank(_ decoder: inout CaptureDecoder) throws {
        let id = try decoder.uint32()
        let origin = try BankCaptureOrigin(from: &decoder)
        let count = try decoder.count(maximum: 10_000)
        var buses: [Bus] = []
        for _ in 0..<count {
            let name = try decoder.string()
            if let bus = engine.withLock({ engine.busLocked(named: name) }) { buses.append(bus) }
        }
        let text = try Self.keptBytes(&decoder)
        let bank: SoundBank
        switch origin {
        case .file(let fingerprint):
            let url = URL(fileURLWithPath: fingerprint.path)
            if let text, (try? FileFingerprint(of: url)) != fingerprint {
                // The bank as the game had it: its file was edited since.
                bank = try SoundBank(
                    source: Data(text), name: url.lastPathComponent,
                    resolver: .directory(url.deletingLastPathComponent()), engine: engine, buses: buses)
            } else {
                try checkFile(fingerprint, what: "bank")
                bank = try SoundBank(contentsOf: url, engine: engine, buses: buses)
            }
        case .bytes(let name, let text, let directory):
            bank = try SoundBank(
                source: Data(text), name: name, resolver: .directory(URL(fileURLWithPath: directory)), engine: engine,
                buses: buses)
        case .archive(let fingerprint, let path):
            try checkFile(fingerprint, what: "archive of bank \(path)")
            let archive = try AudioArchive(url: URL(fileURLWithPath: fingerprint.path))
            bank = try SoundBank(archive: archive, path: path, engine: engine, buses: buses)
        case .unreplayable(let name, let reason):
            throw BackbeatError(
                .invalidArgument, operation: "replay", reason: "bank \"\(name)\" cannot be replayed: \(reason)")
        }
        objects[id] = bank
        if let solo = options.soloBus {
            for bus in bank.buses where bus.name == solo { bus.isSoloed = true }
        }
        note("bank \(bank.url.lastPathComponent)")
    }

    /// The bytes a declaration keeps of a file that may change (a bank's
    /// text, a followed sound's file), after its other fields; nil when it
    /// kept none or was written before it could.
    private static func keptBytes(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) -> [UInt8]? {
        guard !decoder.isAtEnd else { return nil }
        return try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
            Array(try d.bytes(maximum: CapturedFile.largestKept))
        }
    }

    /// ``CaptureKind/effectsEventDeclared``: makes the event (or finds it in its bank) and sets its state.
    private func declareEvent(_ decoder: inout CaptureDecoder, _ record: CaptureRecord) throws {
        let id = try decoder.uint32()
        let event: SoundEvent
        switch try decoder.fixed(UInt8.self) {
        case 0:
            let name = try decoder.string()
            let count = try decoder.count(maximum: 100_000)
            var sounds: [SoundEffect] = []
            for _ in 0..<count { sounds.append(try object(try decoder.uint32(), as: SoundEffect.self, in: record)) }
            let mode = try SoundEvent.mode(&decoder)
            let weightCount = try decoder.count(maximum: 100_000, minimumBytesEach: 8)
            var weights: [Double] = []
            for _ in 0..<weightCount { weights.append(try decoder.double()) }
            event = try SoundEvent(name: name, sounds: sounds, mode: mode, weights: weights)
        case 1:
            let bank = try object(try decoder.uint32(), as: SoundBank.self, in: record)
            let name = try decoder.string()
            guard let found = bank[name] else {
                throw damaged(record, CaptureFormatError.malformed("bank \(bank.url.path) has no event \"\(name)\""))
            }
            event = found
        case let other: throw CaptureFormatError.malformed("event origin \(other)")
        }
        try event.restoreCaptureState(&decoder)
        objects[id] = event
    }

    /// ``CaptureKind/effectsEventSetting``: the same setter.
    private func replayEventSetting(_ decoder: inout CaptureDecoder, _ record: CaptureRecord) throws {
        let event = try object(try decoder.uint32(), as: SoundEvent.self, in: record)
        let code = try decoder.fixed(UInt8.self)
        switch EventSetting(rawValue: code) {
        case .mode: event.mode = try SoundEvent.mode(&decoder)
        case .avoidRepeatingLast: event.avoidRepeatingLast = try decoder.int()
        case .randomization: event.randomization = try SoundEvent.randomization(&decoder)
        case .volume: event.volume = try decoder.float()
        case .priority: event.priority = try decoder.int()
        case .bus: event.bus = try EffectsCaptureCoding.bus(&decoder, engine: engine)
        case .cooldown: event.cooldown = try EffectsCaptureCoding.time(&decoder)
        case .maximumInstances:
            event.maximumInstances = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
                try d.int()
            }
        case .stealPolicy: event.stealPolicy = try SoundEvent.stealPolicy(&decoder)
        case nil: throw CaptureFormatError.malformed("event setting \(code)")
        }
    }

    /// ``CaptureKind/effectsEventPlay``: plays the event and maps its voices to the captured ones.
    private func replayEventPlay(_ decoder: inout CaptureDecoder, _ record: CaptureRecord) throws {
        let event = try object(try decoder.uint32(), as: SoundEvent.self, in: record)
        let time = try EffectsCaptureCoding.optionalTime(&decoder)
        let volume = try decoder.float()
        let position = try EffectsCaptureCoding.optionalPoint(&decoder)
        let bus = try EffectsCaptureCoding.bus(&decoder, engine: engine)
        let count = try decoder.count(maximum: 100_000)
        var captured: [UInt64] = []
        for _ in 0..<count { captured.append(try decoder.uint64()) }
        let started = event.play(at: time, volume: volume, position: position, bus: bus)
        if started.count != captured.count {
            warn(
                "event \(event.name) at \(ReplaySummary.format(seconds: seconds(of: record.frame))) s started "
                    + "\(started.count) voices, the capture \(captured.count): the replay differs from here")
        }
        for (raw, voice) in zip(captured, started) { voices[raw] = voice }
        if !started.isEmpty { note("event \(event.name)") }
    }

    /// ``CaptureKind/effectsListener``: the same listener setter.
    private func replayListener(_ decoder: inout CaptureDecoder) throws {
        typealias Coding = EffectsCaptureCoding
        let code = try decoder.fixed(UInt8.self)
        switch ListenerChange(rawValue: code) {
        case .position: engine.listenerPosition = try Coding.point(&decoder)
        case .angularOrientation:
            engine.listenerAngularOrientation = Audio3DAngularOrientation(
                yaw: try decoder.float(), pitch: try decoder.float(), roll: try decoder.float())
        case .vectorOrientation:
            engine.listenerVectorOrientation = Audio3DVectorOrientation(
                forward: try Coding.point(&decoder), up: try Coding.point(&decoder))
        case .distance: engine.distanceAttenuationParameters = try Coding.distance(&decoder)
        case .velocity: engine.listenerVelocity = try Coding.point(&decoder)
        case .dopplerFactor: engine.dopplerFactor = try decoder.float()
        case .speedOfSound: engine.speedOfSound = try decoder.float()
        case .audibilityThreshold: engine.audibilityThreshold = try decoder.float()
        case .audibilityMargin: engine.audibilityMargin = try decoder.float()
        case .outputType:
            engine.outputType = try Coding.outputType(&decoder)
            note("output \(engine.outputType)")
        case .hrtfDataSet:
            let name = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
                try d.string(maximumBytes: 256)
            }
            do {
                try engine.selectHRTFDataSet(named: name)
            } catch {
                warn("the HRTF data set \(name ?? "default") is not offered here: \(error)")
            }
        case nil: throw CaptureFormatError.malformed("listener change \(code)")
        }
    }
}
