import BackbeatCapture
import BackbeatEngine

extension Voice {
    /// Drives the voice's rate (and so its pitch) from `parameter` through
    /// `curve` (clamped to 0.5...2) at every engine update step, until the voice ends.
    ///
    /// - Parameters:
    ///   - parameter: The game parameter whose heard value drives the rate.
    ///   - curve: Maps the parameter's value to a rate.
    public func bindRate(to parameter: GameParameter, curve: ParameterCurve) {
        bind(parameter, curve, .bindRate) { $0.setRateLocked($1) }
    }

    /// Drives the voice's volume from `parameter` through `curve` (clamped to
    /// 0...1) at every engine update step, until the voice ends.
    ///
    /// - Parameters:
    ///   - parameter: The game parameter whose heard value drives the volume.
    ///   - curve: Maps the parameter's value to a volume.
    public func bindVolume(to parameter: GameParameter, curve: ParameterCurve) {
        bind(parameter, curve, .bindVolume) { $0.setVolumeLocked($1) }
    }

    /// Drives the cutoff of the voice's ``filter`` from `parameter` through
    /// `curve` (its output in hertz, clamped to 10 Hz...half the engine's
    /// sample rate) at every engine update step, until the voice ends: a
    /// low-pass, or a high-pass when the voice's filter is one. The cutoff
    /// follows the parameter's heard value, so its slew limit
    /// (``GameParameter/slewPerSecond``) keeps a jump from zippering.
    ///
    /// ```swift
    /// let damage = try GameParameter(name: "damage", engine: engine, slewPerSecond: 2)
    /// engineLoop.bindFilterCutoff(to: damage, curve: .linear(from: 20_000, to: 800))   // muffled as it takes damage
    /// ```
    ///
    /// - Parameters:
    ///   - parameter: The game parameter whose heard value drives the cutoff.
    ///   - curve: Maps the parameter's value to a cutoff in hertz.
    public func bindFilterCutoff(to parameter: GameParameter, curve: ParameterCurve) {
        guard let engine = sound.engine else { return }
        let nyquist = Float(engine.sampleRate) / 2
        let step = Int64(engine.updateInterval)
        bind(parameter, curve, .bindFilterCutoff) { voice, hertz in
            let cutoff = min(max(hertz, 10), max(10, nyquist))
            let filter: AudioFilter =
                if case .highPass = voice.mix.filter { .highPass(cutoff: cutoff) } else { .lowPass(cutoff: cutoff) }
            guard filter != voice.mix.filter else { return }
            voice.mix.filter = filter
            voice.mix.isUsed = true
            // One update step: the parameter's slew already paces the change (the de-zipper time is the least).
            voice.mix.nextGlideFrames = step
            voice.isSettled = false
        }
    }

    private func bind(
        _ parameter: GameParameter, _ curve: ParameterCurve, _ change: VoiceChange,
        _ apply: @escaping (Voice, Float) -> Void
    ) {
        guard let engine = sound.engine else { return }
        let range = parameter.range
        engine.withLock {
            recordBindingLocked(change, parameter, curve)
            parameter.driveLocked { [weak self] value in
                guard let self, !self.isFinishedLocked else { return false }
                apply(self, curve.output(for: value, in: range))
                return true
            }
        }
        engine.deliverPendingEvents()
    }
}
