import BackbeatCapture
import BackbeatEngine
import BackbeatMedia

extension Voice {
    /// Starts a glide of one parameter from `current` to `target`; with the
    /// lock held. Returns nil for no glide (no engine, or no duration).
    private func startRamp(
        from current: Float, to target: Float, over duration: MediaTime?, curve: FadeCurve, engine: AudioEngine
    ) -> Ramp? {
        guard let duration, duration.seconds.isFinite, duration.seconds > 0 else { return nil }
        let frames = max(0, duration.frames(atSampleRate: engine.sampleRate, rounding: .nearest))
        guard frames > 0 else { return nil }
        engine.voiceGlidesLocked.add(self)
        return Ramp(from: current, to: target, startFrame: engine.currentFrameLocked, frames: frames, curve: curve)
    }

    /// Glides ``volume`` to `volume` over `duration` of engine time along
    /// `curve`, from where it is now (a glide under way continues from its
    /// current value). Nil, zero or a duration that is negative or not finite
    /// sets it at once, ramped over one update period. NaN is ignored; values
    /// outside 0...1 are clamped.
    ///
    /// - Parameters:
    ///   - volume: The volume to reach, 0...1.
    ///   - duration: How long the glide takes in engine time; nil sets it at once.
    ///   - curve: The shape of the glide (default linear).
    public func setVolume(_ volume: Float, over duration: MediaTime?, curve: FadeCurve = .linear) {
        guard !volume.isNaN else { return }
        let target = Voice.clampVolume(volume, else: 1)
        guard let engine else {
            self.volume = target
            return
        }
        engine.withLock {
            recordLocked(.volumeGlide) { Self.encodeGlide(volume, duration, curve, into: &$0) }
            volumeRamp = startRamp(from: gain, to: target, over: duration, curve: curve, engine: engine)
            if volumeRamp == nil { setVolumeLocked(target) }
        }
    }

    /// Glides ``rate`` (and pitch) to `rate` over `duration` of engine time
    /// along `curve` (``FadeCurve/exponential``: a constant rate in octaves),
    /// from where it is now. Nil or no duration sets it at once. NaN is
    /// ignored; values outside 0.5...2 are clamped.
    ///
    /// - Parameters:
    ///   - rate: The rate to reach, 0.5...2.
    ///   - duration: How long the glide takes in engine time; nil sets it at once.
    ///   - curve: The shape of the glide (default linear).
    public func setRate(_ rate: Float, over duration: MediaTime?, curve: FadeCurve = .linear) {
        guard !rate.isNaN else { return }
        let target = Voice.clampRate(rate, else: 1)
        guard let engine else {
            self.rate = target
            return
        }
        engine.withLock {
            recordLocked(.rateGlide) { Self.encodeGlide(rate, duration, curve, into: &$0) }
            rateRamp = startRamp(from: rateValue, to: target, over: duration, curve: curve, engine: engine)
            if rateRamp == nil { setRateLocked(target) }
        }
    }

    /// Glides ``pan`` to `pan` over `duration` of engine time along `curve`,
    /// from where it is now. Nil or no duration sets it at once, ramped over
    /// one update period. NaN is ignored; values outside -1...1 are clamped.
    ///
    /// - Parameters:
    ///   - pan: The pan to reach, -1 (left) ... 1 (right).
    ///   - duration: How long the glide takes in engine time; nil sets it at once.
    ///   - curve: The shape of the glide (default linear).
    public func setPan(_ pan: Float, over duration: MediaTime?, curve: FadeCurve = .linear) {
        guard !pan.isNaN else { return }
        let target = Voice.clampPan(pan, else: 0)
        guard let engine else {
            self.pan = target
            return
        }
        let ramped = engine.withLock { () -> Bool in
            panRamp = startRamp(from: panValue, to: target, over: duration, curve: curve, engine: engine)
            // Not ramped, it is the pan setter below, which records itself.
            if panRamp != nil { recordLocked(.panGlide) { Self.encodeGlide(pan, duration, curve, into: &$0) } }
            return panRamp != nil
        }
        if !ramped { self.pan = target }
    }

    /// A glide's arguments: the value, the optional time and the curve.
    static func encodeGlide(
        _ value: Float, _ duration: MediaTime?, _ curve: FadeCurve, into encoder: inout CaptureEncoder
    ) {
        encoder.append(value)
        EffectsCaptureCoding.encode(duration, into: &encoder)
        EffectsCaptureCoding.encode(curve, into: &encoder)
    }
}
