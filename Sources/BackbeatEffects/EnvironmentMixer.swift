import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL
import BackbeatSupport

/// The engine's environment reverb: one EFX effect slot that every voice with
/// a ``Voice/reverbBlend`` sends to, loaded with the reverb of where the
/// listener is (the zones around it blended with the game-wide reverb), and
/// gliding to each new target so nothing clicks. Lives under the engine lock.
final class EnvironmentMixer: EngineComponent {
    weak var engine: AudioEngine?
    var global = AudioEnvironmentReverbParameters()
    var zones: [ReverbZone] = []
    /// Active mix snapshots' reverbs, lowest priority first (MixSnapshot.swift).
    var snapshotReverbs: [(envelope: SnapshotEnvelope, reverb: AudioEnvironmentReverbParameters)] = []
    private(set) var slot: ALEffectSlot?
    /// What the slot holds now (properties and gain).
    private var current: (properties: ALReverbProperties, gain: Float)?
    private var from: (properties: ALReverbProperties, gain: Float)?
    private var target: (properties: ALReverbProperties, gain: Float)?
    private var glideStart: Int64 = 0
    private var glideEnd: Int64 = 0
    /// The next change glides over this many frames (nil: the de-zipper).
    var nextGlideFrames: Int64?
    /// The curve the next change's level glides along.
    var nextGlideCurve: FadeCurve = .linear
    /// The curve the level glides along now.
    private var glideCurve: FadeCurve = .linear
    private var effectLoaded = false
    /// The last step at which a voice sent to the slot, or meant to.
    private var lastSendFrame: Int64?
    /// The slot's gain as last set (0 before any).
    var appliedGain: Float { current?.gain ?? 0 }
    /// Whether the slot holds the reverb now (not while silent, or while no voice sends to it).
    var isEffectLoaded: Bool { effectLoaded }

    init(engine: AudioEngine) {
        self.engine = engine
        makeSlot()
    }

    private func makeSlot() {
        guard let engine else { return }
        slot = try? engine.device.generateEffectSlot()
        effectLoaded = false
        current = nil
        // Voices that already play learn of the slot at their next step.
        engine.voicePoolLocked.unsettleAll()
    }

    /// The reverb at `point`: each zone weighs 1 inside and fades to 0 over its
    /// fade distance; the game-wide reverb takes what the zones leave (weights
    /// above 1 in total are scaled down). Properties blend over the enabled
    /// reverbs only; the level blends over all, so a disabled one fades out.
    /// Active mix snapshots' reverbs then override the result, from the lowest
    /// priority up, each taking its progress's share of the weight.
    func reverb(at point: Audio3DPoint, frame: Int64 = 0) -> (properties: ALReverbProperties, gain: Float) {
        var entries: [(AudioEnvironmentReverbParameters, Float)] = []
        var total: Float = 0
        for zone in zones {
            let w = zone.weight(at: point)
            if w > 0 {
                entries.append((zone.reverb, w))
                total += w
            }
        }
        if total > 1 {
            entries = entries.map { ($0.0, $0.1 / total) }
            total = 1
        }
        if total < 1 { entries.append((global, 1 - total)) }
        for layer in snapshotReverbs {
            let share = layer.envelope.smoothAmount(at: frame)
            guard share > 0 else { continue }
            entries = entries.map { ($0.0, $0.1 * (1 - share)) }.filter { $0.1 > 0 } + [(layer.reverb, share)]
        }
        var gain: Float = 0
        var properties: ALReverbProperties?
        var weightSoFar: Float = 0
        for (reverb, w) in entries {
            gain += w * reverb.slotGain
            guard reverb.enable else { continue }
            weightSoFar += w
            properties =
                properties.map { ALReverbProperties.blend($0, reverb.properties, w / weightSoFar) }
                ?? reverb.properties
        }
        return (properties ?? current?.properties ?? global.properties, min(max(gain, 0), 1))
    }

    fileprivate init() {}

    /// Puts the slot where the reverb would have settled at `frame`, with no
    /// glide: a replay of a capture that began after the reverb was set
    /// starts where the captured engine was.
    func settleLocked(at frame: Int64) {
        guard let engine, let slot else { return }
        let wanted = reverb(at: engine.listenerLocked.position, frame: frame)
        (from, target, glideStart, glideEnd) = (wanted, wanted, frame, frame)
        nextGlideFrames = nil
        _ = try? engine.device.withContext {
            if wanted.gain > 0 {
                try engine.device.loadReverb(wanted.properties, into: slot)
                effectLoaded = true
            }
            engine.device.setGain(wanted.gain, of: slot)
        }
        current = wanted
    }

    func update(at frame: Int64) throws {
        guard let engine, let slot else { return }
        if !snapshotReverbs.isEmpty { snapshotReverbs.removeAll { $0.envelope.isFinished(at: frame) } }
        let wanted = reverb(at: engine.listenerLocked.position, frame: frame)
        if let target, target.properties == wanted.properties, target.gain == wanted.gain {
        } else {
            from = current ?? (wanted.properties, 0)
            target = wanted
            glideStart = frame
            glideEnd = frame + max(engine.dezipperFrames, nextGlideFrames ?? 0)
            glideCurve = nextGlideFrames == nil ? .linear : nextGlideCurve
            nextGlideFrames = nil
            nextGlideCurve = .linear
        }
        guard let target, let from else { return }
        let now: (properties: ALReverbProperties, gain: Float)
        // Where the glide is at the end of this step: a glide restarted every
        // step (a moving listener) still moves.
        let stepEnd = frame + Int64(engine.updateInterval)
        if stepEnd >= glideEnd || glideEnd <= glideStart {
            now = target
        } else {
            let t = Float(Double(stepEnd - glideStart) / Double(glideEnd - glideStart))
            let level = Ramp(
                from: from.gain, to: target.gain, startFrame: glideStart, frames: glideEnd - glideStart,
                curve: glideCurve)
            now = (ALReverbProperties.blend(from.properties, target.properties, t), level.value(at: stepEnd))
        }
        // A reverb nobody sends to, its tail died away, is unloaded: OpenAL
        // Soft runs a loaded reverb on silence all the same (13 ms of CPU a
        // second of audio in the acoustics suite's 10,000-emitter scene,
        // more than mixing that scene costs).
        if isSentToLocked(slot: slot) { lastSendFrame = frame }
        let ringing = lastSendFrame.map {
            frame - $0 <= Self.tailFrames(of: now.properties, sampleRate: engine.sampleRate)
        }
        let sounds = now.gain > 0 && ringing == true
        if let current, current.properties == now.properties, current.gain == now.gain, effectLoaded == sounds {
            return
        }
        let device = engine.device
        if sounds {
            if !effectLoaded || current?.properties != now.properties {
                try device.loadReverb(now.properties, into: slot)
                effectLoaded = true
            }
        } else if effectLoaded {
            // Silent: unload, so the reverb costs nothing until it sounds again.
            device.clearEffect(of: slot)
            effectLoaded = false
        }
        device.setGain(now.gain, of: slot)
        current = now
    }

    /// When the slot next changes without a call from the game (which
    /// wakes the update loop): every period while it glides, a snapshot's
    /// reverb is under way, or a voice sends to it (its tail is counted from
    /// the last period sent to); once its tail has died away when loaded and
    /// sent to no more; nothing once settled and unloaded. The listener's
    /// position, the zones and the game-wide reverb change only by such calls.
    ///
    /// - Parameter frame: The frame of the step just taken.
    func nextStepFrame(after frame: Int64) -> Int64? {
        guard let engine, let slot else { return nil }
        guard snapshotReverbs.isEmpty, nextGlideFrames == nil, let current, let target,
            current.properties == target.properties, current.gain == target.gain,
            frame + Int64(engine.updateInterval) >= glideEnd || glideEnd <= glideStart
        else { return frame }
        if isSentToLocked(slot: slot) { return frame }
        guard effectLoaded, let last = lastSendFrame else { return nil }
        return last + Self.tailFrames(of: current.properties, sampleRate: engine.sampleRate) + 1
    }

    func nextDueFrame(after frame: Int64) -> Int64? { nextStepFrame(after: frame) }

    /// Whether a voice holding a source sends to `slot` now, or will at this
    /// step (its reverb blend is up: the voices may step after the mixer).
    private func isSentToLocked(slot: ALEffectSlot) -> Bool {
        guard let pool = engine?.existingEffectsLocked?.pool else { return false }
        return pool.voices.contains { voice in
            voice.record.source != nil && (voice.mix.reverbBlend > 0 || voice.mix.appliedSend?.slot == slot)
        }
    }

    /// How long the reverb rings after its last input, in frames, with room
    /// to spare: twice its longest band's decay to -60 dB, and its delays.
    static func tailFrames(of properties: ALReverbProperties, sampleRate: Int) -> Int64 {
        let decay = properties.decayTime * max(1, properties.decayHFRatio, properties.decayLFRatio)
        let seconds = 2 * decay + properties.reflectionsDelay + properties.lateReverbDelay + 0.1
        return Int64(Double(seconds) * Double(sampleRate))
    }

    func deviceWillBeReplaced(readPositions: Bool) {
        slot = nil
        current = nil
        effectLoaded = false
    }

    func deviceWasReplaced() throws { makeSlot() }

    func engineWillShutDown() { slot = nil }
}

extension AudioEngine {
    /// The environment, made on first use, with the lock held.
    var environmentLocked: EnvironmentMixer {
        let effects = effectsLocked
        if let mixer = effects.environment { return mixer }
        let mixer = EnvironmentMixer(engine: self)
        registerLocked(mixer)
        effects.environment = mixer
        return mixer
    }

    /// The reverb for the whole game ("the player is in a cave"), like
    /// `AVAudioEnvironmentNode.reverbParameters`: disabled until set. Voices
    /// feed it by their ``Voice/reverbBlend``; inside ``reverbZones`` the
    /// zones' reverbs take over. A change glides over the de-zipper time;
    /// ``setReverbParameters(_:over:curve:)`` glides longer.
    public var reverbParameters: AudioEnvironmentReverbParameters {
        get {
            withLock { existingEffectsLocked?.environment?.global ?? AudioEnvironmentReverbParameters() }
        }
        set { setReverbParameters(newValue, over: nil) }
    }

    /// Glides the game-wide reverb to `parameters` over `duration` of engine
    /// time (nil: the de-zipper time): its level along `curve` (the
    /// ``FadeCurve`` of volume glides and bus fades; `.exponential` falls at a
    /// constant rate in dB), and its room parameter by parameter, linearly.
    ///
    /// - Parameters:
    ///   - parameters: The reverb to reach.
    ///   - duration: How long the glide takes in engine time; nil for the de-zipper time.
    ///   - curve: The shape of the level's glide (default linear).
    public func setReverbParameters(
        _ parameters: AudioEnvironmentReverbParameters, over duration: MediaTime?, curve: FadeCurve = .linear
    ) {
        withLock {
            recordLocked(.effectsReverb) { encoder in
                EffectsCaptureCoding.encode(parameters, into: &encoder)
                EffectsCaptureCoding.encode(duration, into: &encoder)
                EffectsCaptureCoding.encode(curve, into: &encoder)
            }
            let mixer = environmentLocked
            mixer.global = parameters
            if let duration {
                mixer.nextGlideFrames = duration.frames(atSampleRate: sampleRate)
                mixer.nextGlideCurve = curve
            }
        }
    }

    /// The reverb zones in the world (default none). As the listener moves,
    /// the reverb blends between the zones it is in or near and the
    /// game-wide ``reverbParameters``, continuously.
    public var reverbZones: [ReverbZone] {
        get { withLock { existingEffectsLocked?.environment?.zones ?? [] } }
        set {
            withLock {
                recordLocked(.effectsReverbZones) { EffectsCaptureCoding.encode(newValue, into: &$0) }
                environmentLocked.zones = newValue
            }
        }
    }

    /// How many auxiliary sends each source has on the output device, as it
    /// granted them: Backbeat asks for 2 (the environment reverb's and a bus
    /// effect's), and a device that grants 1 keeps it for the reverb.
    public var auxiliarySendsPerSource: Int { withLock { device.auxiliarySendCount } }
}

/// The room `zones` give at `point` with no game-wide reverb (the benchmark's raw side).
package func environmentReverb(zones: [ReverbZone], at point: Audio3DPoint) -> ALReverbProperties {
    let mixer = EnvironmentMixer()
    mixer.zones = zones
    return mixer.reverb(at: point).properties
}
