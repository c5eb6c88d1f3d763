import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

// The player's level (volume, fades, meters, layers) and its events; volume, fades and meters come from its core.
extension AdaptiveMusicPlayer {
    /// The player's volume, 0...1 (clamped; NaN ignored); setting it cancels a fade.
    public var volume: Float {
        get { core.volume }
        set { locked { applyVolumeLocked(newValue) } }
    }

    /// Underruns so far, of every stream the player has played (always zero on offline outputs).
    public var underrunCount: Int { core.underrunCount }

    /// Fades the volume to `target` over `duration` of engine time; the music plays on.
    ///
    /// - Parameters:
    ///   - target: The volume to reach, 0...1 (clamped; NaN ignored).
    ///   - duration: How long the fade takes, in engine time.
    ///   - curve: The fade's shape; equal-power by default.
    public func fade(to target: Float, duration: MediaTime, curve: FadeCurve = .equalPower) {
        locked { applyFadeLocked(to: target, duration: duration, curve: curve) }
    }

    /// Peak power of a channel in dB at the last ``updateMeters()``: the peaks of
    /// the streams heard together (stems, stingers) added, a bound on the mix's.
    ///
    /// - Parameter channel: 0 for left, 1 for right; any other channel reads -160.
    /// - Returns: The peak power in dB.
    public func peakPower(forChannel channel: Int) -> Float { core.peakPower(forChannel: channel) }

    /// Whether ``updateMeters()`` measures levels. Default false.
    public var isMeteringEnabled: Bool {
        get { core.isMeteringEnabled }
        set { core.isMeteringEnabled = newValue }
    }

    /// Average power of a channel in dB at the last ``updateMeters()``; -160 is silence, 0 full scale.
    /// The streams heard together (stems, stingers) add as powers.
    ///
    /// - Parameter channel: 0 for left, 1 for right; any other channel reads -160.
    /// - Returns: The average power in dB.
    public func averagePower(forChannel channel: Int) -> Float { core.averagePower(forChannel: channel) }

    /// Refreshes the meters from the audio played since the last refresh (after the volume, fades and layer gains).
    public func updateMeters() { core.updateMeters() }

    /// Calls `handler` with each event until the returned token is cancelled,
    /// outside the engine lock, where the engine delivers its own events.
    ///
    /// - Parameter handler: Called with each event, in order.
    /// - Returns: The token that ends the observation when cancelled.
    @discardableResult
    public func observe(_ handler: @escaping @Sendable (Event) -> Void) -> ObservationToken { core.observe(handler) }

    /// A new stream of events from now on; it ends when the engine shuts down.
    /// It keeps the newest 1,024 events its consumer has not read.
    public func events() -> AsyncStream<Event> { core.events() }

    // MARK: Layers

    /// Sets a layer's gain, reached over `duration` of engine time.
    /// Stems of layers never set play at 1.
    ///
    /// - Parameters:
    ///   - layer: The layer's name, as its stems give it.
    ///   - gain: The gain, 0...1 (clamped; NaN ignored).
    ///   - duration: How long the gain takes to get there (linearly); at once by default.
    public func setLayerGain(_ layer: String, to gain: Float, duration: MediaTime = .zero) {
        guard !gain.isNaN else { return }
        locked {
            guard let engine else { return }
            record(.adaptiveLayerGain) { encoder in
                encoder.append(layer)
                encoder.append(gain)
                EngineCaptureValues.encode(duration, into: &encoder)
            }
            setLayerGainLocked(layer, to: min(max(gain, 0), 1), duration: duration, engine: engine)
        }
    }

    /// Drives a layer's gain from `parameter` through `curve` (clamped to 0...1)
    /// at every engine update step, ramped across the step, for as long as the
    /// player lives. It takes over from ``setLayerGain(_:to:duration:)`` for that layer.
    ///
    /// - Parameters:
    ///   - layer: The layer's name, as its stems give it.
    ///   - parameter: The game parameter that drives it.
    ///   - curve: How the parameter's value maps to the gain; linear over its range by default.
    public func bindLayer(_ layer: String, to parameter: GameParameter, curve: ParameterCurve = .linear) {
        let range = parameter.range
        bind(parameter, recording: .adaptiveBindLayer, curve, layer: layer) { player, value, now, interval in
            let gain = min(max(curve.output(for: value, in: range), 0), 1)
            let from = player.layerGains[layer]?.value(at: now) ?? 1
            player.layerGains[layer] = Ramp(from: from, to: gain, startFrame: now, frames: interval, curve: .linear)
        }
    }

    /// Drives the player's volume from `parameter` through `curve` (clamped to 0...1) at every engine update step.
    /// A volume so driven posts no ``Event/volumeDidChange(_:)``.
    ///
    /// - Parameters:
    ///   - parameter: The game parameter that drives it.
    ///   - curve: How the parameter's value maps to the volume; linear over its range by default.
    public func bindVolume(to parameter: GameParameter, curve: ParameterCurve = .linear) {
        let range = parameter.range
        bind(parameter, recording: .adaptiveBindVolume, curve, layer: nil) { player, value, _, _ in
            _ = player.core.level.setVolume(min(max(curve.output(for: value, in: range), 0), 1))
        }
    }

    private func bind(
        _ parameter: GameParameter, recording kind: CaptureKind, _ curve: ParameterCurve, layer: String?,
        _ apply: @escaping (AdaptiveMusicPlayer, Float, _ now: Int64, _ interval: Int64) -> Void
    ) {
        locked {
            guard let engine else { return }
            recordBindingLocked(kind, parameter: parameter, curve: curve, layer: layer)
            let interval = Int64(engine.updateInterval)
            parameter.driveLocked { [weak self, weak engine] value in
                guard let self, let engine else { return false }
                apply(self, value, engine.currentFrameLocked, interval)
                return true
            }
        }
    }

    /// A layer's gain now.
    ///
    /// - Parameter layer: The layer's name.
    /// - Returns: Its gain, 1 for a layer never set.
    public func layerGain(_ layer: String) -> Float {
        locked { layerGains[layer]?.value(at: engine?.currentFrameLocked ?? 0) ?? 1 }
    }

    func setLayerGainLocked(_ layer: String, to gain: Float, duration: MediaTime, engine: AudioEngine) {
        #if DEBUG
        engine.preconditionLocked()
        #endif
        let now = engine.currentFrameLocked
        let from = layerGains[layer]?.value(at: now) ?? 1
        let frames = max(0, duration.frames(atSampleRate: engine.sampleRate))
        layerGains[layer] =
            frames == 0 ? .constant(gain) : Ramp(from: from, to: gain, startFrame: now, frames: frames, curve: .linear)
    }
}
