import BackbeatEngine
import BackbeatMedia

/// Steps the voices whose volume, rate or pan glides, on every update step
/// before the voice pool, so the pool sends this step's values. Voices with
/// no glide are not in its list and cost nothing.
final class VoiceRamps: EngineComponent {
    var voices: [Voice] = []
    weak var engine: AudioEngine?

    func update(at frame: Int64) throws {
        guard !voices.isEmpty, let engine else { return }
        // The value at the end of the step: OpenAL ramps gains across the
        // step's mix, so the rendered level follows the curve between steps.
        let end = frame + Int64(engine.updateInterval)
        voices.removeAll { voice in
            guard !voice.isFinishedLocked else {
                voice.volumeRamp = nil; voice.rateRamp = nil; voice.panRamp = nil
                return true
            }
            if let ramp = voice.volumeRamp {
                voice.setVolumeLocked(ramp.value(at: end))
                if ramp.isComplete(at: end) { voice.volumeRamp = nil }
            }
            if let ramp = voice.rateRamp {
                voice.setRateLocked(ramp.value(at: end))
                if ramp.isComplete(at: end) { voice.rateRamp = nil }
            }
            if let ramp = voice.panRamp {
                voice.panValue = Voice.clampPan(ramp.value(at: end), else: voice.panValue)
                if voice.positionValue == nil, let source = voice.source { voice.applyPlacement(to: source) }
                if ramp.isComplete(at: end) { voice.panRamp = nil }
            }
            return voice.volumeRamp == nil && voice.rateRamp == nil && voice.panRamp == nil
        }
    }

    /// Every period while a voice glides; nothing otherwise.
    func nextDueFrame(after frame: Int64) -> Int64? { voices.isEmpty ? nil : frame }

    func engineWillShutDown() { voices.removeAll() }
}

extension AudioEngine {
    /// The engine's voices with a volume, rate or pan glide, made on first use
    /// and stepped before the voice pool. With the lock held.
    var voiceRampsLocked: VoiceRamps {
        attachmentLocked {
            _ = voicePoolLocked
            let ramps = VoiceRamps()
            ramps.engine = self
            registerLocked(ramps, first: true)
            return ramps
        }
    }
}

extension Voice {
    /// Starts a glide of one parameter from `current` to `target`; with the
    /// lock held. Returns nil for no glide (no engine, or no duration).
    private func startRamp(
        from current: Float, to target: Float, over duration: MediaTime?, curve: FadeCurve, engine: AudioEngine
    ) -> Ramp? {
        guard let duration, duration.seconds.isFinite, duration.seconds > 0 else { return nil }
        let frames = max(0, duration.frames(atSampleRate: engine.sampleRate, rounding: .nearest))
        guard frames > 0 else { return nil }
        let ramps = engine.voiceRampsLocked
        if !ramps.voices.contains(where: { $0 === self }) { ramps.voices.append(self) }
        return Ramp(from: current, to: target, startFrame: engine.currentFrameLocked, frames: frames, curve: curve)
    }

    /// Glides ``volume`` to `volume` over `duration` of engine time along
    /// `curve`, from where it is now (a glide under way continues from its
    /// current value). Nil, zero or a duration that is negative or not finite
    /// sets it at once, ramped over one update period. NaN is ignored; values
    /// outside 0...1 are clamped.
    public func setVolume(_ volume: Float, over duration: MediaTime?, curve: FadeCurve = .linear) {
        guard !volume.isNaN else { return }
        let target = Voice.clampVolume(volume, else: 1)
        guard let engine else { self.volume = target; return }
        engine.withLock {
            volumeRamp = startRamp(from: gain, to: target, over: duration, curve: curve, engine: engine)
            if volumeRamp == nil { setVolumeLocked(target) }
        }
    }

    /// Glides ``rate`` (and pitch) to `rate` over `duration` of engine time
    /// along `curve` (``FadeCurve/exponential``: a constant rate in octaves),
    /// from where it is now. Nil or no duration sets it at once. NaN is
    /// ignored; values outside 0.5...2 are clamped.
    public func setRate(_ rate: Float, over duration: MediaTime?, curve: FadeCurve = .linear) {
        guard !rate.isNaN else { return }
        let target = Voice.clampRate(rate, else: 1)
        guard let engine else { self.rate = target; return }
        engine.withLock {
            rateRamp = startRamp(from: rateValue, to: target, over: duration, curve: curve, engine: engine)
            if rateRamp == nil { setRateLocked(target) }
        }
    }

    /// Glides ``pan`` to `pan` over `duration` of engine time along `curve`,
    /// from where it is now. Nil or no duration sets it at once, ramped over
    /// one update period. NaN is ignored; values outside -1...1 are clamped.
    public func setPan(_ pan: Float, over duration: MediaTime?, curve: FadeCurve = .linear) {
        guard !pan.isNaN else { return }
        let target = Voice.clampPan(pan, else: 0)
        guard let engine else { self.pan = target; return }
        let ramped = engine.withLock { () -> Bool in
            panRamp = startRamp(from: panValue, to: target, over: duration, curve: curve, engine: engine)
            return panRamp != nil
        }
        if !ramped { self.pan = target }
    }
}
