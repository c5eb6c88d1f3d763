extension Bus {
    /// Drives the cutoff of the bus's ``filter`` from `parameter` through
    /// `curve` (its output in hertz, clamped to 10 Hz...half the engine's
    /// sample rate) at every engine update step, for as long as the bus
    /// lives: a low-pass, or a high-pass when the bus's filter is one. The
    /// cutoff follows the parameter's heard value, so its slew limit
    /// (``GameParameter/slewPerSecond``) paces a jump; each step glides over
    /// one update period.
    ///
    /// ```swift
    /// let underwater = try GameParameter(name: "depth", engine: engine, slewPerSecond: 1)
    /// worldBus.bindFilterCutoff(to: underwater, curve: .linear(from: 20_000, to: 600))
    /// ```
    ///
    /// - Parameters:
    ///   - parameter: The parameter that drives the cutoff.
    ///   - curve: Maps the parameter's range to a cutoff in hertz.
    public func bindFilterCutoff(to parameter: GameParameter, curve: ParameterCurve) {
        guard let engine else { return }
        let nyquist = Float(engine.sampleRate) / 2
        let sampleRate = engine.sampleRate
        let step = Int64(engine.updateInterval)
        let range = parameter.range
        engine.withLock {
            if let parameterID = parameter.captureIDLocked() {
                recordLocked(.busFilterBinding) { encoder in
                    encoder.append(parameterID)
                    EngineCaptureValues.encode(curve, into: &encoder)
                }
            }
            parameter.driveLocked { [weak self, weak engine] value in
                guard let self, let engine else { return false }
                let cutoff = min(max(curve.output(for: value, in: range), 10), max(10, nyquist))
                let filter: AudioFilter =
                    if case .highPass = self.filterState.filter { .highPass(cutoff: cutoff) } else {
                        .lowPass(cutoff: cutoff)
                    }
                guard filter != self.filterState.filter else { return true }
                let now = engine.currentFrameLocked
                self.filterState = BusFilterState(
                    filter: filter, from: self.filterState.gains(at: now), to: filter.gains(sampleRate: sampleRate),
                    start: now, end: now + step)
                return true
            }
        }
        engine.deliverPendingEvents()
    }
}
