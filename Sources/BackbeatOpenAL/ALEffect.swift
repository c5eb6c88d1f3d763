import COpenAL

/// An EFX effect other than the reverb, with values already range-checked.
package enum ALEffectParameters: Equatable, Sendable {
    case echo(delay: Float, lrDelay: Float, damping: Float, feedback: Float, spread: Float)
    case ringModulator(frequency: Float, highPassCutoff: Float, waveform: Int32)
    case equalizer(
        lowGain: Float, lowCutoff: Float, mid1Gain: Float, mid1Center: Float, mid1Width: Float,
        mid2Gain: Float, mid2Center: Float, mid2Width: Float, highGain: Float, highCutoff: Float)
}

extension ALDevice {
    /// Loads `parameters` into `slot`. Context current.
    package func loadEffect(_ parameters: ALEffectParameters, into slot: ALEffectSlot) throws {
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
        }
        try check("alEffect (bus effect)")
        alAuxiliaryEffectSloti(slot.name, AL_EFFECTSLOT_EFFECT, ALint(bitPattern: e))
        try check("alAuxiliaryEffectSloti")
    }
}
