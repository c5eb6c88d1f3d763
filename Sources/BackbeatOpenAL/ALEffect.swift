import COpenAL

/// An EFX effect other than the reverb, with values already range-checked.
package enum ALEffectParameters: Equatable, Sendable {
    case echo(delay: Float, lrDelay: Float, damping: Float, feedback: Float, spread: Float)
    case ringModulator(frequency: Float, highPassCutoff: Float, waveform: Int32)
    case equalizer(
        lowGain: Float, lowCutoff: Float, mid1Gain: Float, mid1Center: Float, mid1Width: Float,
        mid2Gain: Float, mid2Center: Float, mid2Width: Float, highGain: Float, highCutoff: Float)
    case compressor(on: Bool)
    case distortion(edge: Float, gain: Float, lowPassCutoff: Float, eqCenter: Float, eqBandwidth: Float)
    case pitchShifter(coarseTune: Int32, fineTune: Int32)
    /// Directions: 0 down, 1 up, 2 off (`AL_FREQUENCY_SHIFTER_DIRECTION_*`).
    case frequencyShifter(frequency: Float, leftDirection: Int32, rightDirection: Int32)
    /// Waveform 0 sine, 1 triangle; phase in degrees; delay in seconds.
    case chorus(waveform: Int32, phase: Int32, rate: Float, depth: Float, feedback: Float, delay: Float)
    /// As the chorus.
    case flanger(waveform: Int32, phase: Int32, rate: Float, depth: Float, feedback: Float, delay: Float)
    /// Times in seconds, peak gain linear.
    case autowah(attackTime: Float, releaseTime: Float, resonance: Float, peakGain: Float)
    /// An EAX reverb (clamped when loaded) and the slot's gain.
    case reverb(ALReverbProperties, slotGain: Float)

    /// The gain the slot holding this effect plays at.
    package var slotGain: Float {
        if case .reverb(_, let gain) = self { return gain.isNaN ? 0 : min(max(gain, 0), 1) }
        return 1
    }
}

extension ALDevice {
    /// Loads `parameters` into `slot`. Context current.
    package func loadEffect(_ parameters: ALEffectParameters, into slot: ALEffectSlot) throws {
        ALRampedWrites.note()
        if case .reverb(let properties, _) = parameters {
            try loadReverb(properties, into: slot)
            return
        }
        let e = try scratchEffectName()
        switch parameters {
        case .echo(let delay, let lrDelay, let damping, let feedback, let spread):
            alEffecti(e, AL_EFFECT_TYPE, AL_EFFECT_ECHO)
            alEffectf(e, AL_ECHO_DELAY, delay)
            alEffectf(e, AL_ECHO_LRDELAY, lrDelay)
            alEffectf(e, AL_ECHO_DAMPING, damping)
            alEffectf(e, AL_ECHO_FEEDBACK, feedback)
            alEffectf(e, AL_ECHO_SPREAD, spread)
        case .ringModulator(let frequency, let cutoff, let waveform):
            alEffecti(e, AL_EFFECT_TYPE, AL_EFFECT_RING_MODULATOR)
            alEffectf(e, AL_RING_MODULATOR_FREQUENCY, frequency)
            alEffectf(e, AL_RING_MODULATOR_HIGHPASS_CUTOFF, cutoff)
            alEffecti(e, AL_RING_MODULATOR_WAVEFORM, waveform)
        case .equalizer(let lg, let lc, let m1g, let m1c, let m1w, let m2g, let m2c, let m2w, let hg, let hc):
            alEffecti(e, AL_EFFECT_TYPE, AL_EFFECT_EQUALIZER)
            alEffectf(e, AL_EQUALIZER_LOW_GAIN, lg)
            alEffectf(e, AL_EQUALIZER_LOW_CUTOFF, lc)
            alEffectf(e, AL_EQUALIZER_MID1_GAIN, m1g)
            alEffectf(e, AL_EQUALIZER_MID1_CENTER, m1c)
            alEffectf(e, AL_EQUALIZER_MID1_WIDTH, m1w)
            alEffectf(e, AL_EQUALIZER_MID2_GAIN, m2g)
            alEffectf(e, AL_EQUALIZER_MID2_CENTER, m2c)
            alEffectf(e, AL_EQUALIZER_MID2_WIDTH, m2w)
            alEffectf(e, AL_EQUALIZER_HIGH_GAIN, hg)
            alEffectf(e, AL_EQUALIZER_HIGH_CUTOFF, hc)
        case .compressor(let on):
            alEffecti(e, AL_EFFECT_TYPE, AL_EFFECT_COMPRESSOR)
            alEffecti(e, AL_COMPRESSOR_ONOFF, on ? 1 : 0)
        case .distortion(let edge, let gain, let cutoff, let center, let bandwidth):
            alEffecti(e, AL_EFFECT_TYPE, AL_EFFECT_DISTORTION)
            alEffectf(e, AL_DISTORTION_EDGE, edge)
            alEffectf(e, AL_DISTORTION_GAIN, gain)
            alEffectf(e, AL_DISTORTION_LOWPASS_CUTOFF, cutoff)
            alEffectf(e, AL_DISTORTION_EQCENTER, center)
            alEffectf(e, AL_DISTORTION_EQBANDWIDTH, bandwidth)
        case .pitchShifter(let coarse, let fine):
            alEffecti(e, AL_EFFECT_TYPE, AL_EFFECT_PITCH_SHIFTER)
            alEffecti(e, AL_PITCH_SHIFTER_COARSE_TUNE, coarse)
            alEffecti(e, AL_PITCH_SHIFTER_FINE_TUNE, fine)
        case .frequencyShifter(let frequency, let left, let right):
            alEffecti(e, AL_EFFECT_TYPE, AL_EFFECT_FREQUENCY_SHIFTER)
            alEffectf(e, AL_FREQUENCY_SHIFTER_FREQUENCY, frequency)
            alEffecti(e, AL_FREQUENCY_SHIFTER_LEFT_DIRECTION, left)
            alEffecti(e, AL_FREQUENCY_SHIFTER_RIGHT_DIRECTION, right)
        case .chorus(let waveform, let phase, let rate, let depth, let feedback, let delay):
            alEffecti(e, AL_EFFECT_TYPE, AL_EFFECT_CHORUS)
            alEffecti(e, AL_CHORUS_WAVEFORM, waveform)
            alEffecti(e, AL_CHORUS_PHASE, phase)
            alEffectf(e, AL_CHORUS_RATE, rate)
            alEffectf(e, AL_CHORUS_DEPTH, depth)
            alEffectf(e, AL_CHORUS_FEEDBACK, feedback)
            alEffectf(e, AL_CHORUS_DELAY, delay)
        case .flanger(let waveform, let phase, let rate, let depth, let feedback, let delay):
            alEffecti(e, AL_EFFECT_TYPE, AL_EFFECT_FLANGER)
            alEffecti(e, AL_FLANGER_WAVEFORM, waveform)
            alEffecti(e, AL_FLANGER_PHASE, phase)
            alEffectf(e, AL_FLANGER_RATE, rate)
            alEffectf(e, AL_FLANGER_DEPTH, depth)
            alEffectf(e, AL_FLANGER_FEEDBACK, feedback)
            alEffectf(e, AL_FLANGER_DELAY, delay)
        case .autowah(let attack, let release, let resonance, let peakGain):
            alEffecti(e, AL_EFFECT_TYPE, AL_EFFECT_AUTOWAH)
            alEffectf(e, AL_AUTOWAH_ATTACK_TIME, attack)
            alEffectf(e, AL_AUTOWAH_RELEASE_TIME, release)
            alEffectf(e, AL_AUTOWAH_RESONANCE, resonance)
            alEffectf(e, AL_AUTOWAH_PEAK_GAIN, peakGain)
        case .reverb:
            break  // loaded above
        }
        try check("alEffect (bus effect)")
        alAuxiliaryEffectSloti(slot.name, AL_EFFECTSLOT_EFFECT, ALint(bitPattern: e))
        try check("alAuxiliaryEffectSloti")
    }
}
