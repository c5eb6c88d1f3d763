import BackbeatEngine

extension Voice {
    /// Drives the voice's rate (and so its pitch) from `parameter` through
    /// `curve` (clamped to 0.5...2) at every engine update step, until the voice ends.
    public func bindRate(to parameter: GameParameter, curve: ParameterCurve) {
        bind(parameter, curve) { $0.setRateLocked($1) }
    }

    /// Drives the voice's volume from `parameter` through `curve` (clamped to
    /// 0...1) at every engine update step, until the voice ends.
    public func bindVolume(to parameter: GameParameter, curve: ParameterCurve) {
        bind(parameter, curve) { $0.setVolumeLocked($1) }
    }

    private func bind(_ parameter: GameParameter, _ curve: ParameterCurve, _ apply: @escaping (Voice, Float) -> Void) {
        guard let engine = sound.engine else { return }
        let range = parameter.range
        engine.withLock {
            parameter.driveLocked { [weak self] value in
                guard let self, !self.isFinishedLocked else { return false }
                apply(self, curve.output(for: value, in: range))
                return true
            }
        }
        engine.deliverPendingEvents()
    }
}
