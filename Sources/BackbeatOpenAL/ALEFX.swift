import BackbeatSupport
import COpenAL

/// The parameters of an EFX EAX reverb (`EFXEAXREVERBPROPERTIES`), in plain
/// numbers: what a preset of `efx-presets.h` holds.
package struct ALReverbProperties: Equatable, Sendable {
    package var density: Float = 1
    package var diffusion: Float = 1
    package var gain: Float = 0.3162
    package var gainHF: Float = 0.8913
    package var gainLF: Float = 1
    package var decayTime: Float = 1.49
    package var decayHFRatio: Float = 0.83
    package var decayLFRatio: Float = 1
    package var reflectionsGain: Float = 0.05
    package var reflectionsDelay: Float = 0.007
    package var reflectionsPan: (x: Float, y: Float, z: Float) = (0, 0, 0)
    package var lateReverbGain: Float = 1.2589
    package var lateReverbDelay: Float = 0.011
    package var lateReverbPan: (x: Float, y: Float, z: Float) = (0, 0, 0)
    package var echoTime: Float = 0.25
    package var echoDepth: Float = 0
    package var modulationTime: Float = 0.25
    package var modulationDepth: Float = 0
    package var airAbsorptionGainHF: Float = 0.9943
    package var hfReference: Float = 5000
    package var lfReference: Float = 250
    package var roomRolloffFactor: Float = 0
    package var decayHFLimit = true

    package init() {}

    package static func == (a: Self, b: Self) -> Bool {
        a.scalars == b.scalars && a.reflectionsPan == b.reflectionsPan && a.lateReverbPan == b.lateReverbPan
            && a.decayHFLimit == b.decayHFLimit
    }

    /// Every float parameter but the pans, in `efx-presets.h` order.
    package var scalars: [Float] {
        [
            density, diffusion, gain, gainHF, gainLF, decayTime, decayHFRatio, decayLFRatio, reflectionsGain,
            reflectionsDelay, lateReverbGain, lateReverbDelay, echoTime, echoDepth, modulationTime, modulationDepth,
            airAbsorptionGainHF, hfReference, lfReference, roomRolloffFactor,
        ]
    }

    init(_ p: EFXEAXREVERBPROPERTIES) {
        density = p.flDensity
        diffusion = p.flDiffusion
        gain = p.flGain
        gainHF = p.flGainHF
        gainLF = p.flGainLF
        decayTime = p.flDecayTime
        decayHFRatio = p.flDecayHFRatio
        decayLFRatio = p.flDecayLFRatio
        reflectionsGain = p.flReflectionsGain
        reflectionsDelay = p.flReflectionsDelay
        reflectionsPan = (p.flReflectionsPan.0, p.flReflectionsPan.1, p.flReflectionsPan.2)
        lateReverbGain = p.flLateReverbGain
        lateReverbDelay = p.flLateReverbDelay
        lateReverbPan = (p.flLateReverbPan.0, p.flLateReverbPan.1, p.flLateReverbPan.2)
        echoTime = p.flEchoTime
        echoDepth = p.flEchoDepth
        modulationTime = p.flModulationTime
        modulationDepth = p.flModulationDepth
        airAbsorptionGainHF = p.flAirAbsorptionGainHF
        hfReference = p.flHFReference
        lfReference = p.flLFReference
        roomRolloffFactor = p.flRoomRolloffFactor
        decayHFLimit = p.iDecayHFLimit != 0
    }

    /// The presets of `efx-presets.h`, in its order: names in lowercase
    /// without `EFX_REVERB_PRESET_` ("generic", "hangar", "castle_smallroom").
    package static let presets: [(name: String, properties: ALReverbProperties)] =
        (0..<Int(
            BACKBEAT_EFX_PRESET_COUNT)).map { i in
            let name = backbeat_efx_preset_name(Int32(i)).map { String(cString: $0) } ?? "preset\(i)"
            return (name, ALReverbProperties(backbeat_efx_preset(Int32(i))))
        }

    /// The preset called `name` (lowercase, no prefix), or nil.
    package static func preset(named name: String) -> ALReverbProperties? {
        presets.first { $0.name == name }?.properties
    }

    /// Each value clamped to the range EFX accepts for it (AL_EAXREVERB_MIN_*/MAX_*);
    /// NaN becomes the minimum.
    package var clamped: ALReverbProperties {
        func c(_ v: Float, _ lo: Float, _ hi: Float) -> Float { v.isNaN ? lo : min(max(v, lo), hi) }
        var r = self
        r.density = c(density, AL_EAXREVERB_MIN_DENSITY, AL_EAXREVERB_MAX_DENSITY)
        r.diffusion = c(diffusion, AL_EAXREVERB_MIN_DIFFUSION, AL_EAXREVERB_MAX_DIFFUSION)
        r.gain = c(gain, AL_EAXREVERB_MIN_GAIN, AL_EAXREVERB_MAX_GAIN)
        r.gainHF = c(gainHF, AL_EAXREVERB_MIN_GAINHF, AL_EAXREVERB_MAX_GAINHF)
        r.gainLF = c(gainLF, AL_EAXREVERB_MIN_GAINLF, AL_EAXREVERB_MAX_GAINLF)
        r.decayTime = c(decayTime, AL_EAXREVERB_MIN_DECAY_TIME, AL_EAXREVERB_MAX_DECAY_TIME)
        r.decayHFRatio = c(decayHFRatio, AL_EAXREVERB_MIN_DECAY_HFRATIO, AL_EAXREVERB_MAX_DECAY_HFRATIO)
        r.decayLFRatio = c(decayLFRatio, AL_EAXREVERB_MIN_DECAY_LFRATIO, AL_EAXREVERB_MAX_DECAY_LFRATIO)
        r.reflectionsGain = c(reflectionsGain, AL_EAXREVERB_MIN_REFLECTIONS_GAIN, AL_EAXREVERB_MAX_REFLECTIONS_GAIN)
        r.reflectionsDelay = c(
            reflectionsDelay, AL_EAXREVERB_MIN_REFLECTIONS_DELAY, AL_EAXREVERB_MAX_REFLECTIONS_DELAY)
        r.lateReverbGain = c(lateReverbGain, AL_EAXREVERB_MIN_LATE_REVERB_GAIN, AL_EAXREVERB_MAX_LATE_REVERB_GAIN)
        r.lateReverbDelay = c(
            lateReverbDelay, AL_EAXREVERB_MIN_LATE_REVERB_DELAY, AL_EAXREVERB_MAX_LATE_REVERB_DELAY)
        r.echoTime = c(echoTime, AL_EAXREVERB_MIN_ECHO_TIME, AL_EAXREVERB_MAX_ECHO_TIME)
        r.echoDepth = c(echoDepth, AL_EAXREVERB_MIN_ECHO_DEPTH, AL_EAXREVERB_MAX_ECHO_DEPTH)
        r.modulationTime = c(modulationTime, AL_EAXREVERB_MIN_MODULATION_TIME, AL_EAXREVERB_MAX_MODULATION_TIME)
        r.modulationDepth = c(modulationDepth, AL_EAXREVERB_MIN_MODULATION_DEPTH, AL_EAXREVERB_MAX_MODULATION_DEPTH)
        r.airAbsorptionGainHF = c(
            airAbsorptionGainHF, AL_EAXREVERB_MIN_AIR_ABSORPTION_GAINHF, AL_EAXREVERB_MAX_AIR_ABSORPTION_GAINHF)
        r.hfReference = c(hfReference, AL_EAXREVERB_MIN_HFREFERENCE, AL_EAXREVERB_MAX_HFREFERENCE)
        r.lfReference = c(lfReference, AL_EAXREVERB_MIN_LFREFERENCE, AL_EAXREVERB_MAX_LFREFERENCE)
        r.roomRolloffFactor = c(
            roomRolloffFactor, AL_EAXREVERB_MIN_ROOM_ROLLOFF_FACTOR, AL_EAXREVERB_MAX_ROOM_ROLLOFF_FACTOR)
        func pan(_ p: (x: Float, y: Float, z: Float)) -> (x: Float, y: Float, z: Float) {
            let v = (p.x.isFinite ? p.x : 0, p.y.isFinite ? p.y : 0, p.z.isFinite ? p.z : 0)
            let length = (v.0 * v.0 + v.1 * v.1 + v.2 * v.2).squareRoot()
            return length > 1 ? (v.0 / length, v.1 / length, v.2 / length) : v
        }
        r.reflectionsPan = pan(reflectionsPan)
        r.lateReverbPan = pan(lateReverbPan)
        return r
    }

    /// The straight-line mix of `a` and `b` (t from 0, all `a`, to 1, all `b`);
    /// the decay-HF limit comes from the nearer one.
    package static func blend(_ a: Self, _ b: Self, _ t: Float) -> Self {
        let t = t.isNaN ? 0 : min(max(t, 0), 1)
        func m(_ x: Float, _ y: Float) -> Float { x + (y - x) * t }
        var r = a
        r.density = m(a.density, b.density)
        r.diffusion = m(a.diffusion, b.diffusion)
        r.gain = m(a.gain, b.gain)
        r.gainHF = m(a.gainHF, b.gainHF)
        r.gainLF = m(a.gainLF, b.gainLF)
        r.decayTime = m(a.decayTime, b.decayTime)
        r.decayHFRatio = m(a.decayHFRatio, b.decayHFRatio)
        r.decayLFRatio = m(a.decayLFRatio, b.decayLFRatio)
        r.reflectionsGain = m(a.reflectionsGain, b.reflectionsGain)
        r.reflectionsDelay = m(a.reflectionsDelay, b.reflectionsDelay)
        r.reflectionsPan = (
            m(a.reflectionsPan.x, b.reflectionsPan.x), m(a.reflectionsPan.y, b.reflectionsPan.y),
            m(a.reflectionsPan.z, b.reflectionsPan.z)
        )
        r.lateReverbGain = m(a.lateReverbGain, b.lateReverbGain)
        r.lateReverbDelay = m(a.lateReverbDelay, b.lateReverbDelay)
        r.lateReverbPan = (
            m(a.lateReverbPan.x, b.lateReverbPan.x), m(a.lateReverbPan.y, b.lateReverbPan.y),
            m(a.lateReverbPan.z, b.lateReverbPan.z)
        )
        r.echoTime = m(a.echoTime, b.echoTime)
        r.echoDepth = m(a.echoDepth, b.echoDepth)
        r.modulationTime = m(a.modulationTime, b.modulationTime)
        r.modulationDepth = m(a.modulationDepth, b.modulationDepth)
        r.airAbsorptionGainHF = m(a.airAbsorptionGainHF, b.airAbsorptionGainHF)
        r.hfReference = m(a.hfReference, b.hfReference)
        r.lfReference = m(a.lfReference, b.lfReference)
        r.roomRolloffFactor = m(a.roomRolloffFactor, b.roomRolloffFactor)
        r.decayHFLimit = t < 0.5 ? a.decayHFLimit : b.decayHFLimit
        return r
    }
}

/// An EFX filter's shape and gains (each 0...1), copied into a source's
/// direct path or one of its sends. A low-pass is a high shelf at 5 kHz, a
/// high-pass a low shelf at 250 Hz (OpenAL Soft 1.19), a band-pass both.
package enum ALFilterParameters: Equatable, Sendable {
    case none
    case lowPass(gain: Float, gainHF: Float)
    case highPass(gain: Float, gainLF: Float)
    case bandPass(gain: Float, gainLF: Float, gainHF: Float)
}

/// An EFX auxiliary effect slot's name.
package struct ALEffectSlot: Hashable, Sendable {
    package let name: ALuint
}

extension ALDevice {
    /// What Backbeat asks for at context creation: the two sends it uses, the
    /// environment reverb (0) and a bus effect (1). OpenAL Soft 1.19 would
    /// grant 16, but it works out both filters of every send it granted
    /// whenever a source changes, used or not: with 16, that was most of the
    /// cost of moving a source.
    static let requestedAuxiliarySends = ALCint(2)

    /// The auxiliary sends per source the device granted (ALC_MAX_AUXILIARY_SENDS).
    func grantedAuxiliarySends() -> Int {
        guard let device, !isClosed else { return 0 }
        var value: ALCint = 0
        alcGetIntegerv(device, ALCenum(ALC_MAX_AUXILIARY_SENDS), 1, &value)
        return Int(max(0, value))
    }

    /// Whether the device has EFX (ALC_EXT_EFX).
    package var hasEFX: Bool {
        guard let device, !isClosed else { return false }
        return alcIsExtensionPresent(device, "ALC_EXT_EFX") == ALC_TRUE
    }

    /// Makes an auxiliary effect slot with no effect (silent until one is loaded).
    package func generateEffectSlot() throws -> ALEffectSlot {
        try withContext("alGenAuxiliaryEffectSlots") {
            guard hasEFX else {
                throw BackbeatError(.openAL, operation: "alGenAuxiliaryEffectSlots", reason: "the device has no EFX")
            }
            var slot: ALuint = 0
            alGenAuxiliaryEffectSlots(1, &slot)
            try check("alGenAuxiliaryEffectSlots")
            liveEffectSlots.insert(slot)
            return ALEffectSlot(name: slot)
        }
    }

    /// Deletes a slot; sources sending to it must have been pointed elsewhere.
    package func deleteEffectSlot(_ slot: ALEffectSlot) {
        _ = try? withContext {
            guard liveEffectSlots.remove(slot.name) != nil else { return }
            var name = slot.name
            alAuxiliaryEffectSloti(name, AL_EFFECTSLOT_EFFECT, AL_EFFECT_NULL)
            alDeleteAuxiliaryEffectSlots(1, &name)
            _ = alGetError()
        }
    }

    /// Loads an EAX reverb with `properties` (clamped) into `slot`. The slot
    /// keeps a copy; loading again changes it. Context current.
    package func loadReverb(_ properties: ALReverbProperties, into slot: ALEffectSlot) throws {
        ALRampedWrites.note()
        let effect = try scratchEffectName()
        let p = properties.clamped
        alEffecti(effect, AL_EFFECT_TYPE, AL_EFFECT_EAXREVERB)
        alEffectf(effect, AL_EAXREVERB_DENSITY, p.density)
        alEffectf(effect, AL_EAXREVERB_DIFFUSION, p.diffusion)
        alEffectf(effect, AL_EAXREVERB_GAIN, p.gain)
        alEffectf(effect, AL_EAXREVERB_GAINHF, p.gainHF)
        alEffectf(effect, AL_EAXREVERB_GAINLF, p.gainLF)
        alEffectf(effect, AL_EAXREVERB_DECAY_TIME, p.decayTime)
        alEffectf(effect, AL_EAXREVERB_DECAY_HFRATIO, p.decayHFRatio)
        alEffectf(effect, AL_EAXREVERB_DECAY_LFRATIO, p.decayLFRatio)
        alEffectf(effect, AL_EAXREVERB_REFLECTIONS_GAIN, p.reflectionsGain)
        alEffectf(effect, AL_EAXREVERB_REFLECTIONS_DELAY, p.reflectionsDelay)
        var reflectionsPan = [p.reflectionsPan.x, p.reflectionsPan.y, p.reflectionsPan.z]
        alEffectfv(effect, AL_EAXREVERB_REFLECTIONS_PAN, &reflectionsPan)
        alEffectf(effect, AL_EAXREVERB_LATE_REVERB_GAIN, p.lateReverbGain)
        alEffectf(effect, AL_EAXREVERB_LATE_REVERB_DELAY, p.lateReverbDelay)
        var latePan = [p.lateReverbPan.x, p.lateReverbPan.y, p.lateReverbPan.z]
        alEffectfv(effect, AL_EAXREVERB_LATE_REVERB_PAN, &latePan)
        alEffectf(effect, AL_EAXREVERB_ECHO_TIME, p.echoTime)
        alEffectf(effect, AL_EAXREVERB_ECHO_DEPTH, p.echoDepth)
        alEffectf(effect, AL_EAXREVERB_MODULATION_TIME, p.modulationTime)
        alEffectf(effect, AL_EAXREVERB_MODULATION_DEPTH, p.modulationDepth)
        alEffectf(effect, AL_EAXREVERB_AIR_ABSORPTION_GAINHF, p.airAbsorptionGainHF)
        alEffectf(effect, AL_EAXREVERB_HFREFERENCE, p.hfReference)
        alEffectf(effect, AL_EAXREVERB_LFREFERENCE, p.lfReference)
        alEffectf(effect, AL_EAXREVERB_ROOM_ROLLOFF_FACTOR, p.roomRolloffFactor)
        alEffecti(effect, AL_EAXREVERB_DECAY_HFLIMIT, p.decayHFLimit ? AL_TRUE : AL_FALSE)
        try check("alEffect (EAX reverb)")
        alAuxiliaryEffectSloti(slot.name, AL_EFFECTSLOT_EFFECT, ALint(bitPattern: effect))
        try check("alAuxiliaryEffectSloti")
    }

    /// Empties `slot` (it then outputs nothing). Context current.
    package func clearEffect(of slot: ALEffectSlot) {
        ALRampedWrites.note()
        alAuxiliaryEffectSloti(slot.name, AL_EFFECTSLOT_EFFECT, AL_EFFECT_NULL)
        _ = alGetError()
    }

    /// The slot's output level, 0...1 (AL_EFFECTSLOT_GAIN). Context current.
    package func setGain(_ gain: Float, of slot: ALEffectSlot) {
        ALRampedWrites.note()
        alAuxiliaryEffectSlotf(slot.name, AL_EFFECTSLOT_GAIN, gain.isNaN ? 0 : min(max(gain, 0), 1))
    }

    /// Sets the filter on `source`'s direct path (AL_DIRECT_FILTER). Context current.
    package func setDirectFilter(_ parameters: ALFilterParameters, on source: ALSource) {
        ALRampedWrites.note()
        let filter = loadScratchFilter(parameters)
        alSourcei(source.name, AL_DIRECT_FILTER, ALint(bitPattern: filter))
    }

    /// Points `source`'s auxiliary send `index` at `slot` (nil: no send) through
    /// a filter (AL_AUXILIARY_SEND_FILTER); sends past ``auxiliarySendCount``
    /// are ignored. Context current.
    package func setSend(_ index: Int, of source: ALSource, to slot: ALEffectSlot?, filter: ALFilterParameters) {
        guard index >= 0, index < Int(Self.requestedAuxiliarySends) else { return }
        ALRampedWrites.note()
        let filterName = loadScratchFilter(filter)
        alSource3i(
            source.name, AL_AUXILIARY_SEND_FILTER, ALint(bitPattern: slot?.name ?? 0), ALint(index),
            ALint(bitPattern: filterName))
        _ = alGetError()  // an index the device did not grant
    }

    /// The scratch filter loaded with `parameters` (0 for none): sources copy
    /// a filter's values when it is set on them, so one object serves all.
    private func loadScratchFilter(_ parameters: ALFilterParameters) -> ALuint {
        func g(_ v: Float) -> Float { v.isNaN ? 1 : min(max(v, 0), 1) }
        if case .none = parameters { return 0 }
        if scratchFilter == 0 {
            alGenFilters(1, &scratchFilter)
            if alGetError() != AL_NO_ERROR {
                scratchFilter = 0
                return 0
            }
        }
        let f = scratchFilter
        switch parameters {
        case .none: return 0
        case .lowPass(let gain, let gainHF):
            alFilteri(f, AL_FILTER_TYPE, AL_FILTER_LOWPASS)
            alFilterf(f, AL_LOWPASS_GAIN, g(gain))
            alFilterf(f, AL_LOWPASS_GAINHF, g(gainHF))
        case .highPass(let gain, let gainLF):
            alFilteri(f, AL_FILTER_TYPE, AL_FILTER_HIGHPASS)
            alFilterf(f, AL_HIGHPASS_GAIN, g(gain))
            alFilterf(f, AL_HIGHPASS_GAINLF, g(gainLF))
        case .bandPass(let gain, let gainLF, let gainHF):
            alFilteri(f, AL_FILTER_TYPE, AL_FILTER_BANDPASS)
            alFilterf(f, AL_BANDPASS_GAIN, g(gain))
            alFilterf(f, AL_BANDPASS_GAINLF, g(gainLF))
            alFilterf(f, AL_BANDPASS_GAINHF, g(gainHF))
        }
        _ = alGetError()
        return f
    }

    func scratchEffectName() throws -> ALuint {
        if scratchEffect == 0 {
            alGenEffects(1, &scratchEffect)
            if alGetError() != AL_NO_ERROR {
                scratchEffect = 0
                throw BackbeatError(.openAL, operation: "alGenEffects", reason: "the device has no EFX")
            }
        }
        return scratchEffect
    }

    /// Deletes every EFX name (close, after the sources). Context current.
    func deleteEffectNames() {
        for var slot in liveEffectSlots {
            alAuxiliaryEffectSloti(slot, AL_EFFECTSLOT_EFFECT, AL_EFFECT_NULL)
            alDeleteAuxiliaryEffectSlots(1, &slot)
        }
        liveEffectSlots.removeAll()
        if scratchEffect != 0 {
            alDeleteEffects(1, &scratchEffect)
            scratchEffect = 0
        }
        if scratchFilter != 0 {
            alDeleteFilters(1, &scratchFilter)
            scratchFilter = 0
        }
        _ = alGetError()
    }
}
