import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL

/// How the effects' records write their values (and how a replay reads
/// them back): the exact bit patterns the game passed, so a replay makes
/// the same calls. Named apart from other modules' helpers so a replay that
/// imports them all never finds two of one name.
package enum EffectsCaptureCoding {
    // MARK: Points and times

    /// Writes a point as three `Float` bit patterns.
    ///
    /// - Parameters:
    ///   - point: The point.
    ///   - encoder: Where to write it.
    package static func encode(_ point: Audio3DPoint, into encoder: inout CaptureEncoder) {
        encoder.append(point.x)
        encoder.append(point.y)
        encoder.append(point.z)
    }

    /// Reads a point.
    ///
    /// - Parameter decoder: The record's decoder.
    package static func point(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) -> Audio3DPoint {
        Audio3DPoint(x: try decoder.float(), y: try decoder.float(), z: try decoder.float())
    }

    /// Writes a time as its value and timescale.
    ///
    /// - Parameters:
    ///   - time: The time.
    ///   - encoder: Where to write it.
    package static func encode(_ time: MediaTime, into encoder: inout CaptureEncoder) {
        encoder.append(time.value)
        encoder.append(UInt64(UInt32(bitPattern: time.timescale)))
    }

    /// Reads a time (a timescale of at least 1).
    ///
    /// - Parameter decoder: The record's decoder.
    package static func time(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) -> MediaTime {
        let value = try decoder.int64()
        let scale = try decoder.uint32()
        guard scale >= 1, scale <= UInt32(Int32.max) else { throw .malformed("a timescale of \(scale)") }
        return MediaTime(value: value, timescale: Int32(scale))
    }

    /// Writes an optional time.
    ///
    /// - Parameters:
    ///   - time: The time, or nil.
    ///   - encoder: Where to write it.
    package static func encode(_ time: MediaTime?, into encoder: inout CaptureEncoder) {
        // As `appendOptional` writes it, without its generic call: from this
        // module that call looks up type metadata, on every play's record.
        encoder.append(time != nil)
        if let time { encode(time, into: &encoder) }
    }

    /// Reads an optional time.
    ///
    /// - Parameter decoder: The record's decoder.
    package static func optionalTime(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) -> MediaTime? {
        try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in try time(&d) }
    }

    /// Writes an optional point.
    ///
    /// - Parameters:
    ///   - point: The point, or nil.
    ///   - encoder: Where to write it.
    package static func encode(_ point: Audio3DPoint?, into encoder: inout CaptureEncoder) {
        // As `appendOptional` writes it, without its generic call (see the time's).
        encoder.append(point != nil)
        if let point { encode(point, into: &encoder) }
    }

    /// Reads an optional point.
    ///
    /// - Parameter decoder: The record's decoder.
    package static func optionalPoint(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) -> Audio3DPoint? {
        try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in try point(&d) }
    }

    // MARK: Small enumerations

    /// Writes a looping: `0` once, `1` and a count, `2` forever.
    ///
    /// - Parameters:
    ///   - looping: The looping.
    ///   - encoder: Where to write it.
    package static func encode(_ looping: Looping, into encoder: inout CaptureEncoder) {
        switch looping {
        case .once: encoder.append(UInt64(0))
        case .times(let n):
            encoder.append(UInt64(1))
            encoder.append(n)
        case .forever: encoder.append(UInt64(2))
        }
    }

    /// Reads a looping.
    ///
    /// - Parameter decoder: The record's decoder.
    package static func looping(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) -> Looping {
        switch try decoder.uint64() {
        case 0: return .once
        case 1: return .times(try decoder.int(in: -1_000_000_000...1_000_000_000))
        case 2: return .forever
        case let other: throw .malformed("looping \(other)")
        }
    }

    /// Writes a fade curve as a byte.
    ///
    /// - Parameters:
    ///   - curve: The curve.
    ///   - encoder: Where to write it.
    package static func encode(_ curve: FadeCurve, into encoder: inout CaptureEncoder) {
        let code: UInt8 =
            switch curve {
            case .linear: 0
            case .equalPower: 1
            case .exponential: 2
            }
        encoder.appendFixed(code)
    }

    /// Reads a fade curve.
    ///
    /// - Parameter decoder: The record's decoder.
    package static func curve(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) -> FadeCurve {
        switch try decoder.fixed(UInt8.self) {
        case 0: return .linear
        case 1: return .equalPower
        case 2: return .exponential
        case let other: throw .malformed("fade curve \(other)")
        }
    }

    /// Writes a filter: `0` low-pass, `1` high-pass, `2` band-pass, `3` gains, then its values.
    ///
    /// - Parameters:
    ///   - filter: The filter.
    ///   - encoder: Where to write it.
    package static func encode(_ filter: AudioFilter, into encoder: inout CaptureEncoder) {
        switch filter {
        case .lowPass(let cutoff):
            encoder.appendFixed(UInt8(0))
            encoder.append(cutoff)
        case .highPass(let cutoff):
            encoder.appendFixed(UInt8(1))
            encoder.append(cutoff)
        case .bandPass(let low, let high):
            encoder.appendFixed(UInt8(2))
            encoder.append(low)
            encoder.append(high)
        case .gains(let gain, let lf, let hf):
            encoder.appendFixed(UInt8(3))
            encoder.append(gain)
            encoder.append(lf)
            encoder.append(hf)
        }
    }

    /// Reads a filter.
    ///
    /// - Parameter decoder: The record's decoder.
    package static func filter(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) -> AudioFilter {
        switch try decoder.fixed(UInt8.self) {
        case 0: return .lowPass(cutoff: try decoder.float())
        case 1: return .highPass(cutoff: try decoder.float())
        case 2: return .bandPass(lowCutoff: try decoder.float(), highCutoff: try decoder.float())
        case 3: return .gains(gain: try decoder.float(), gainLF: try decoder.float(), gainHF: try decoder.float())
        case let other: throw .malformed("filter \(other)")
        }
    }

    /// Writes distance parameters: the model's byte and three `Float`s.
    ///
    /// - Parameters:
    ///   - parameters: The parameters.
    ///   - encoder: Where to write them.
    package static func encode(_ parameters: AudioDistanceAttenuationParameters, into encoder: inout CaptureEncoder) {
        let model = AudioDistanceAttenuationModel.allCases.firstIndex(of: parameters.distanceAttenuationModel) ?? 0
        encoder.appendFixed(UInt8(model))
        encoder.append(parameters.referenceDistance)
        encoder.append(parameters.maximumDistance)
        encoder.append(parameters.rolloffFactor)
    }

    /// Reads distance parameters.
    ///
    /// - Parameter decoder: The record's decoder.
    package static func distance(
        _ decoder: inout CaptureDecoder
    ) throws(CaptureFormatError) -> AudioDistanceAttenuationParameters {
        let model = Int(try decoder.fixed(UInt8.self))
        guard model < AudioDistanceAttenuationModel.allCases.count else {
            throw .malformed("distance model \(model)")
        }
        var p = AudioDistanceAttenuationParameters()
        p.distanceAttenuationModel = AudioDistanceAttenuationModel.allCases[model]
        p.referenceDistance = try decoder.float()
        p.maximumDistance = try decoder.float()
        p.rolloffFactor = try decoder.float()
        return p
    }

    /// Writes a cone: four `Float`s.
    ///
    /// - Parameters:
    ///   - cone: The cone.
    ///   - encoder: Where to write it.
    package static func encode(_ cone: AudioCone, into encoder: inout CaptureEncoder) {
        encoder.append(cone.innerAngle)
        encoder.append(cone.outerAngle)
        encoder.append(cone.outerGain)
        encoder.append(cone.outerHighFrequencyGain)
    }

    /// Reads a cone.
    ///
    /// - Parameter decoder: The record's decoder.
    package static func cone(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) -> AudioCone {
        var cone = AudioCone()
        cone.innerAngle = try decoder.float()
        cone.outerAngle = try decoder.float()
        cone.outerGain = try decoder.float()
        cone.outerHighFrequencyGain = try decoder.float()
        return cone
    }

    /// Writes an output type as a byte (its place in `allCases`).
    ///
    /// - Parameters:
    ///   - type: The output type.
    ///   - encoder: Where to write it.
    package static func encode(_ type: AudioEnvironmentOutputType, into encoder: inout CaptureEncoder) {
        encoder.appendFixed(UInt8(AudioEnvironmentOutputType.allCases.firstIndex(of: type) ?? 0))
    }

    /// Reads an output type.
    ///
    /// - Parameter decoder: The record's decoder.
    package static func outputType(
        _ decoder: inout CaptureDecoder
    ) throws(CaptureFormatError) -> AudioEnvironmentOutputType {
        let index = Int(try decoder.fixed(UInt8.self))
        guard index < AudioEnvironmentOutputType.allCases.count else { throw .malformed("output type \(index)") }
        return AudioEnvironmentOutputType.allCases[index]
    }

    // MARK: Reverb

    /// Writes a reverb: enable, level, the preset's name (optional) and every EFX property.
    ///
    /// - Parameters:
    ///   - reverb: The reverb.
    ///   - encoder: Where to write it.
    package static func encode(_ reverb: AudioEnvironmentReverbParameters, into encoder: inout CaptureEncoder) {
        encoder.append(reverb.enable)
        encoder.append(reverb.level)
        encoder.appendOptional(reverb.presetName) { $0.append($1) }
        let p = reverb.properties
        for value in p.scalars { encoder.append(value) }
        for value in [p.reflectionsPan.x, p.reflectionsPan.y, p.reflectionsPan.z] { encoder.append(value) }
        for value in [p.lateReverbPan.x, p.lateReverbPan.y, p.lateReverbPan.z] { encoder.append(value) }
        encoder.append(p.decayHFLimit)
    }

    /// Reads a reverb.
    ///
    /// - Parameter decoder: The record's decoder.
    package static func reverb(
        _ decoder: inout CaptureDecoder
    ) throws(CaptureFormatError) -> AudioEnvironmentReverbParameters {
        var reverb = AudioEnvironmentReverbParameters()
        reverb.enable = try decoder.bool()
        reverb.level = try decoder.float()
        let preset = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
            try d.string(maximumBytes: 256)
        }
        if let preset {
            do { try reverb.loadFactoryReverbPreset(preset) } catch { throw .malformed("reverb preset \(preset)") }
        }
        var s = [Float]()
        for _ in 0..<20 { s.append(try decoder.float()) }
        var p = ALReverbProperties()
        (p.density, p.diffusion, p.gain, p.gainHF, p.gainLF) = (s[0], s[1], s[2], s[3], s[4])
        (p.decayTime, p.decayHFRatio, p.decayLFRatio, p.reflectionsGain) = (s[5], s[6], s[7], s[8])
        (p.reflectionsDelay, p.lateReverbGain, p.lateReverbDelay, p.echoTime) = (s[9], s[10], s[11], s[12])
        (p.echoDepth, p.modulationTime, p.modulationDepth, p.airAbsorptionGainHF) = (s[13], s[14], s[15], s[16])
        (p.hfReference, p.lfReference, p.roomRolloffFactor) = (s[17], s[18], s[19])
        p.reflectionsPan = (try decoder.float(), try decoder.float(), try decoder.float())
        p.lateReverbPan = (try decoder.float(), try decoder.float(), try decoder.float())
        p.decayHFLimit = try decoder.bool()
        reverb.properties = p
        return reverb
    }

    /// Writes reverb zones.
    ///
    /// - Parameters:
    ///   - zones: The zones.
    ///   - encoder: Where to write them.
    package static func encode(_ zones: [ReverbZone], into encoder: inout CaptureEncoder) {
        encoder.append(UInt64(zones.count))
        for zone in zones {
            encoder.append(zone.name)
            switch zone.shape {
            case .sphere(let center, let radius):
                encoder.appendFixed(UInt8(0))
                encode(center, into: &encoder)
                encoder.append(radius)
            case .box(let center, let size):
                encoder.appendFixed(UInt8(1))
                encode(center, into: &encoder)
                encode(size, into: &encoder)
            }
            encoder.append(zone.fadeDistance)
            encode(zone.reverb, into: &encoder)
        }
    }

    /// Reads reverb zones.
    ///
    /// - Parameter decoder: The record's decoder.
    package static func zones(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) -> [ReverbZone] {
        let count = try decoder.count(maximum: 100_000, minimumBytesEach: 30)
        var zones: [ReverbZone] = []
        for _ in 0..<count {
            let name = try decoder.string()
            let shape: ReverbZone.Shape
            switch try decoder.fixed(UInt8.self) {
            case 0: shape = .sphere(center: try point(&decoder), radius: try decoder.float())
            case 1: shape = .box(center: try point(&decoder), size: try point(&decoder))
            case let other: throw .malformed("zone shape \(other)")
            }
            let fade = try decoder.float()
            let room = try EffectsCaptureCoding.reverb(&decoder)
            zones.append(ReverbZone(name: name, shape: shape, fadeDistance: fade, reverb: room))
        }
        return zones
    }

    // MARK: Buses

    /// Writes which bus: `0` none (the default), `1` master, `2` music,
    /// `3` effects, `4` and the name of a bus the game or a bank made.
    ///
    /// - Parameters:
    ///   - bus: The bus, or nil.
    ///   - engine: Its engine, for its own buses.
    ///   - encoder: Where to write it.
    package static func encode(_ bus: Bus?, engine: AudioEngine, into encoder: inout CaptureEncoder) {
        guard let bus else {
            encoder.appendFixed(UInt8(0))
            return
        }
        if bus === engine.masterBus {
            encoder.appendFixed(UInt8(1))
        } else if bus === engine.musicBus {
            encoder.appendFixed(UInt8(2))
        } else if bus === engine.effectsBus {
            encoder.appendFixed(UInt8(3))
        } else {
            encoder.appendFixed(UInt8(4))
            encoder.append(bus.name)
        }
    }

    /// Which bus a record names: nil for the default, else the bus of
    /// `engine` by that name (the replay's).
    ///
    /// - Parameters:
    ///   - decoder: The record's decoder.
    ///   - engine: The engine whose bus it is.
    /// - Throws: When the code is unknown or no bus has the name.
    package static func bus(_ decoder: inout CaptureDecoder, engine: AudioEngine) throws(CaptureFormatError) -> Bus? {
        switch try decoder.fixed(UInt8.self) {
        case 0: return nil
        case 1: return engine.masterBus
        case 2: return engine.musicBus
        case 3: return engine.effectsBus
        case 4:
            let name = try decoder.string()
            guard let bus = engine.withLock({ engine.busLocked(named: name) }) else {
                throw .malformed("no bus named \"\(name)\"")
            }
            return bus
        case let other: throw .malformed("bus code \(other)")
        }
    }

    // MARK: Snapshots

    /// Writes a snapshot: its name, its bus settings (sorted by bus name) and its reverb.
    ///
    /// - Parameters:
    ///   - snapshot: The snapshot.
    ///   - encoder: Where to write it.
    package static func encode(_ snapshot: MixSnapshot, into encoder: inout CaptureEncoder) {
        encoder.append(snapshot.name)
        let buses = snapshot.buses.sorted { $0.key < $1.key }
        encoder.append(UInt64(buses.count))
        for (name, settings) in buses {
            encoder.append(name)
            encoder.appendOptional(settings.volume) { $0.append($1) }
            encoder.appendOptional(settings.filter) { encode($1, into: &$0) }
            encoder.appendOptional(settings.effect) { encode($1, into: &$0) }
            encoder.appendOptional(settings.wetDryMix) { $0.append($1) }
        }
        encoder.appendOptional(snapshot.reverb) { encode($1, into: &$0) }
    }

    /// Reads a snapshot.
    ///
    /// - Parameter decoder: The record's decoder.
    package static func snapshot(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) -> MixSnapshot {
        let name = try decoder.string()
        let count = try decoder.count(maximum: 10_000, minimumBytesEach: 5)
        var buses: [String: MixSnapshot.BusSettings] = [:]
        for _ in 0..<count {
            let bus = try decoder.string()
            var settings = MixSnapshot.BusSettings()
            settings.volume = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
                try d.float()
            }
            settings.filter = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
                try filter(&d)
            }
            settings.effect = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
                try effect(&d)
            }
            settings.wetDryMix = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
                try d.float()
            }
            buses[bus] = settings
        }
        let room = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
            try EffectsCaptureCoding.reverb(&d)
        }
        return MixSnapshot(name: name, buses: buses, reverb: room)
    }
}
