import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL
import BackbeatSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A voice's place in the environment (reverb send, obstruction, occlusion,
/// its own filter) and the glide of its filter gains, with the engine lock.
struct VoiceMix {
    var reverbBlend: Float = 0
    var obstruction: Float = 0
    var occlusion: Float = 0
    var filter: AudioFilter?
    /// What the level's geometry does to the direct path and to the reverb
    /// send (set by BackbeatAcoustics).
    var acoustic = FilterGains.open
    var acousticSend = FilterGains.open
    /// The direction, from the listener, the level makes the voice heard
    /// from (unit length; nil: where the game put it): where the source's
    /// direction glides to. See ``Voice/heardPointLocked(_:)``.
    var acousticDirection: Audio3DPoint?
    /// The direction the source is placed by now (nil: the game's point),
    /// on its way to ``acousticDirection``.
    var heardDirection: Audio3DPoint?
    /// Where the direction's glide started from (nil: not gliding), and when it runs.
    var directionFrom: Audio3DPoint?
    var directionStart: Int64 = 0
    var directionEnd: Int64 = 0
    /// The room whose reverb the voice's send feeds (``RoomReverbMixer``);
    /// nil: the environment reverb, the listener's.
    var reverbRoom: String?
    /// Whether anything was ever set: untouched voices cost nothing.
    var isUsed = false
    /// The next change glides over this many frames (nil: the de-zipper).
    var nextGlideFrames: Int64?
    var target: (direct: FilterGains, send: FilterGains)?
    var from = (direct: FilterGains.open, send: FilterGains(gain: 0, gainLF: 1, gainHF: 1))
    var current = (direct: FilterGains.open, send: FilterGains(gain: 0, gainLF: 1, gainHF: 1))
    var glideStart: Int64 = 0
    var glideEnd: Int64 = 0
    /// While a gentle glide runs at the coarse cadence (see
    /// ``Voice/coarseGlidePeriods``): the frame of its next step, which the
    /// voice pool asks for and visits the voice at; nil otherwise.
    var glideDue: Int64?
    /// What the source has now (nil: never set on this source).
    var appliedDirect: FilterGains?
    /// The environment reverb's send (auxiliary send 0).
    var appliedSend: AuxiliarySend?
    /// The bus effect's send (auxiliary send 1).
    var appliedBusSend: AuxiliarySend?

    /// The voice's own direct-path and send gains for its settings at `sampleRate`.
    func targets(sampleRate: Int) -> (direct: FilterGains, send: FilterGains) {
        let occluded = FilterGains(decibels: occlusion, lowFrequencyRatio: 0.25)
        let obstructed = FilterGains(decibels: obstruction, lowFrequencyRatio: 0)
        let own = filter?.gains(sampleRate: sampleRate) ?? .open
        var send = occluded.then(acousticSend)
        send.gain *= reverbBlend
        return (own.then(obstructed).then(occluded).then(acoustic), send)
    }
}

extension Voice {
    private func changeMix(
        over duration: MediaTime?, recording change: VoiceChange, _ value: (inout CaptureEncoder) -> Void,
        _ body: (inout VoiceMix) -> Void
    ) {
        guard let engine = sound.engine else {
            body(&mix)
            mix.isUsed = true
            return
        }
        engine.withLock {
            recordLocked(change) { encoder in
                value(&encoder)
                EffectsCaptureCoding.encode(duration, into: &encoder)
            }
            changeMixLocked(over: duration, engine: engine, body)
        }
    }

    /// ``changeMix(over:recording:_:_:)`` with the engine lock held, unrecorded.
    func changeMixLocked(over duration: MediaTime?, engine: AudioEngine, _ body: (inout VoiceMix) -> Void) {
        body(&mix)
        mix.isUsed = true
        if let duration { mix.nextGlideFrames = duration.frames(atSampleRate: engine.sampleRate) }
        isSettled = false
        // A voice that has not sounded yet starts with its settings: nothing to glide from.
        if let source = record.source, phase == .playing, engine.currentFrameLocked <= record.startFrame {
            _ = try? engine.device.withContext {
                stepMix(source: source, at: engine.currentFrameLocked, attaching: true, engine: engine)
            }
        }
    }

    private func readMix<T>(_ body: (VoiceMix) -> T) -> T {
        guard let engine = sound.engine else { return body(mix) }
        return engine.withLock { body(mix) }
    }

    /// How much of the voice feeds the environment reverb, 0...1 (default 0),
    /// like `AVAudio3DMixing.reverbBlend`: the level of its auxiliary send to
    /// ``AudioEngine/reverbParameters`` and the ``AudioEngine/reverbZones``.
    /// Values outside are clamped; NaN is ignored. Changes glide over the
    /// de-zipper time; ``setReverbBlend(_:over:)`` glides longer.
    public var reverbBlend: Float {
        get { readMix { $0.reverbBlend } }
        set { setReverbBlend(newValue, over: nil) }
    }

    /// Glides ``reverbBlend`` to `blend` over `duration` of engine time (nil: the de-zipper time).
    ///
    /// - Parameters:
    ///   - blend: The send level, 0...1 (clamped; NaN is ignored).
    ///   - duration: How long the glide takes in engine time; nil for the de-zipper time.
    public func setReverbBlend(_ blend: Float, over duration: MediaTime?) {
        guard !blend.isNaN else { return }
        changeMix(
            over: duration, recording: .reverbBlend, { $0.append(blend) }, { $0.reverbBlend = min(max(blend, 0), 1) })
    }

    /// How much an obstacle muffles the voice's direct path only, in dB,
    /// -100...0 (default 0), like `AVAudio3DMixing.obstruction`: a low-pass
    /// that lowers 5 kHz by this much and leaves low frequencies (EAX's
    /// obstruction, LF ratio 0). The reverb send stays as it was. Values
    /// outside are clamped; NaN is ignored. Changes glide over the de-zipper time.
    public var obstruction: Float {
        get { readMix { $0.obstruction } }
        set { setObstruction(newValue, over: nil) }
    }

    /// Glides ``obstruction`` to `decibels` over `duration` (nil: the de-zipper time).
    ///
    /// - Parameters:
    ///   - decibels: The obstruction, -100...0 dB (clamped; NaN is ignored).
    ///   - duration: How long the glide takes in engine time; nil for the de-zipper time.
    public func setObstruction(_ decibels: Float, over duration: MediaTime?) {
        guard !decibels.isNaN else { return }
        changeMix(
            over: duration, recording: .obstruction, { $0.append(decibels) },
            { $0.obstruction = min(max(decibels, -100), 0) })
    }

    /// How much a wall between the voice and the listener muffles both its
    /// direct path and its reverb send, in dB, -100...0 (default 0), like
    /// `AVAudio3DMixing.occlusion`: a low-pass that lowers 5 kHz by this much
    /// and everything by a quarter of it (EAX's occlusion, LF ratio 0.25).
    /// Values outside are clamped; NaN is ignored. Changes glide over the de-zipper time.
    public var occlusion: Float {
        get { readMix { $0.occlusion } }
        set { setOcclusion(newValue, over: nil) }
    }

    /// Glides ``occlusion`` to `decibels` over `duration` (nil: the de-zipper time).
    ///
    /// - Parameters:
    ///   - decibels: The occlusion, -100...0 dB (clamped; NaN is ignored).
    ///   - duration: How long the glide takes in engine time; nil for the de-zipper time.
    public func setOcclusion(_ decibels: Float, over duration: MediaTime?) {
        guard !decibels.isNaN else { return }
        changeMix(
            over: duration, recording: .occlusion, { $0.append(decibels) },
            { $0.occlusion = min(max(decibels, -100), 0) })
    }

    /// A filter on the voice's direct path (nil, the default, for none), in
    /// series with its bus's. Changes glide over the de-zipper time.
    public var filter: AudioFilter? {
        get { readMix { $0.filter } }
        set { setFilter(newValue, over: nil) }
    }

    /// Glides the voice's ``filter`` to `filter` over `duration` (nil: the de-zipper time).
    ///
    /// - Parameters:
    ///   - filter: The filter to reach; nil for none.
    ///   - duration: How long the glide takes in engine time; nil for the de-zipper time.
    public func setFilter(_ filter: AudioFilter?, over duration: MediaTime?) {
        let record = { (e: inout CaptureEncoder) in
            e.appendOptional(filter) { EffectsCaptureCoding.encode($1, into: &$0) }
        }
        changeMix(over: duration, recording: .filter, record, { $0.filter = filter })
    }

    /// The hook BackbeatAcoustics sets a voice's direct path through: what
    /// the level's walls and edges do to it, in series with the voice's own
    /// filter, obstruction and occlusion, gliding like them.
    ///
    /// - Parameters:
    ///   - gains: The direct path's broadband, low and high shelf gains.
    ///   - duration: How long the glide takes in engine time; nil for the de-zipper time.
    package func setAcousticFilter(_ gains: FilterGains, over duration: MediaTime?) {
        guard let engine = sound.engine else {
            mix.acoustic = gains
            mix.isUsed = true
            return
        }
        engine.withLock {
            // The simulation's result, not the level, is what a replay needs.
            recordAcousticLocked(.filter(gains, duration))
            changeMixLocked(over: duration, engine: engine) { $0.acoustic = gains }
        }
    }

    /// The hook BackbeatAcoustics sets the direction a voice is heard from
    /// through (see ``heardPointLocked(_:)``); the source's direction glides
    /// there over the de-zipper time.
    ///
    /// - Parameter direction: From the listener, unit length; nil for where the game put the voice.
    package func setAcousticDirection(_ direction: SIMD3<Float>?) {
        // A direction that is not finite places nothing: the voice is heard where the game put it.
        let point = AcousticsCaptureCoding.heardDirection(direction)
        guard let engine = sound.engine else {
            mix.acousticDirection = point
            mix.heardDirection = point
            return
        }
        engine.withLock {
            guard mix.acousticDirection != point else { return }
            recordAcousticLocked(.direction(point))
            setAcousticDirectionLocked(point, glideFrames: engine.dezipperFrames, engine: engine)
        }
    }

    /// Sets the direction the voice is heard from, gliding from where its
    /// source is heard now over `frames` (at least the de-zipper time), along
    /// the arc between the two: a door that opens on the other side moves
    /// the voice around the listener over several update periods, rather
    /// than in one (a click, and a jump). A voice not heard yet starts there.
    /// With the engine lock held.
    ///
    /// - Parameters:
    ///   - point: From the listener, unit length; nil for where the game put the voice.
    ///   - frames: How long the glide takes, in frames.
    ///   - engine: The voice's engine.
    func setAcousticDirectionLocked(_ point: Audio3DPoint?, glideFrames frames: Int64, engine: AudioEngine) {
        guard mix.acousticDirection != point else { return }
        mix.acousticDirection = point
        mix.isUsed = true
        let now = engine.currentFrameLocked
        guard let source = record.source, positionValue != nil else {
            mix.heardDirection = point
            mix.directionFrom = nil
            return
        }
        if now <= record.startFrame || phase != .playing {
            mix.heardDirection = point
            mix.directionFrom = nil
        } else if let from = heardUnitDirectionLocked() {
            mix.directionFrom = from
            mix.directionStart = now
            mix.directionEnd = now + max(frames, engine.dezipperFrames)
            isSettled = false
            return
        } else {
            mix.heardDirection = point
        }
        _ = try? engine.device.withContext { applyPlacement(to: source) }
    }

    /// The direction, from the listener, the voice's source is heard from
    /// now (unit length), or nil where it has no position or sits on the
    /// listener. With the engine lock held.
    func heardUnitDirectionLocked() -> Audio3DPoint? {
        if let heard = mix.heardDirection { return heard }
        return gameDirectionLocked()
    }

    /// The direction, from the listener, of where the game put the voice
    /// (unit length), or nil. With the engine lock held.
    func gameDirectionLocked() -> Audio3DPoint? {
        guard let p = positionValue, let listener = engine?.listenerLocked.position else { return nil }
        return Audio3DPoint(x: p.x - listener.x, y: p.y - listener.y, z: p.z - listener.z).unitOrNil
    }

    /// Moves the direction one update step along its glide (the step ending
    /// at `stepEnd`) and places the source there. Engine lock held, context current.
    ///
    /// - Parameters:
    ///   - source: The voice's source.
    ///   - stepEnd: The frame the step ends at.
    ///   - engine: The voice's engine.
    /// - Returns: whether the direction still glides.
    func stepDirection(source: ALSource, to stepEnd: Int64, engine: AudioEngine) -> Bool {
        guard let from = mix.directionFrom else { return false }
        var gliding = true
        if stepEnd >= mix.directionEnd || mix.directionEnd <= mix.directionStart {
            mix.heardDirection = mix.acousticDirection
            mix.directionFrom = nil
            gliding = false
        } else if let to = mix.acousticDirection ?? gameDirectionLocked() {
            let t = Float(Double(stepEnd - mix.directionStart) / Double(mix.directionEnd - mix.directionStart))
            mix.heardDirection = from.arc(to: to, fraction: t, through: engine.listenerLocked.forward)
        }
        applyPlacement(to: source)
        return gliding
    }
}

extension Voice {
    /// Where the voice's source is placed for the game's point `p`: `p`
    /// itself, or, while the level bends its path
    /// (``VoiceMix/heardDirection``), the point at the same distance from
    /// the listener in the direction it is heard from (the last bend of its
    /// path: a door, an edge). The distance stays the game's, so the
    /// engine's distance curve is unchanged; the longer path's extra loss is
    /// in the acoustic gains. With the engine lock held.
    ///
    /// - Parameter p: The game's point for the voice.
    func heardPointLocked(_ p: Audio3DPoint) -> Audio3DPoint {
        guard let direction = mix.heardDirection, let listener = engine?.listenerLocked.position else { return p }
        let dx = p.x - listener.x
        let dy = p.y - listener.y
        let dz = p.z - listener.z
        let distance = (dx * dx + dy * dy + dz * dz).squareRoot()
        return Audio3DPoint(
            x: listener.x + direction.x * distance, y: listener.y + direction.y * distance,
            z: listener.z + direction.z * distance)
    }

    /// Moves the voice's filters and send one update step along their glide
    /// and sets what changed on its source. `attaching` snaps to the targets
    /// (a voice that starts has nothing to glide from). Engine lock held,
    /// context current.
    ///
    /// - Returns: whether a glide is still running (the voice must not settle).
    @discardableResult
    func stepMix(source: ALSource, at frame: Int64, attaching: Bool, engine: AudioEngine) -> Bool {
        let voice = self
        if attaching {
            voice.mix.glideDue = nil
            voice.mix.appliedDirect = nil
            voice.mix.appliedSend = nil
            voice.mix.appliedBusSend = nil
            // Nothing heard yet to glide from: the source starts where it is heard.
            if voice.mix.directionFrom != nil || voice.mix.heardDirection != voice.mix.acousticDirection {
                voice.mix.directionFrom = nil
                voice.mix.heardDirection = voice.mix.acousticDirection
                voice.applyPlacement(to: source)
            }
        }
        let busEffect = voice.bus?.stepEffect
        let busFilter = voice.bus?.stepFilter ?? .open
        if !voice.mix.isUsed && busFilter == .open && busEffect == nil && voice.mix.appliedDirect == nil
            && voice.mix.appliedSend?.slot == nil && voice.mix.appliedBusSend?.slot == nil
        {
            return false
        }
        let slot =
            voice.mix.reverbRoom.map { engine.existingEffectsLocked?.roomReverbs?.slot(ofRoom: $0) }
            ?? engine.existingEffectsLocked?.environment?.slot
        var mix = voice.mix
        let targets = mix.targets(sampleRate: engine.sampleRate)
        if attaching {
            mix.current = targets
            mix.target = targets
            mix.glideEnd = frame
        } else if mix.target.map({ $0.direct != targets.direct || $0.send != targets.send }) ?? true {
            mix.from = mix.current
            mix.target = targets
            mix.glideStart = frame
            mix.glideEnd = frame + max(engine.dezipperFrames, mix.nextGlideFrames ?? 0)
            mix.nextGlideFrames = nil
        }
        // Where the glide is at the end of this step.
        let stepEnd = frame + Int64(engine.updateInterval)
        if stepEnd >= mix.glideEnd || mix.glideEnd <= mix.glideStart {
            mix.current = targets
        } else {
            let t = Float(Double(stepEnd - mix.glideStart) / Double(mix.glideEnd - mix.glideStart))
            mix.current = (
                mix.from.direct.moved(toward: targets.direct, fraction: t),
                mix.from.send.moved(toward: targets.send, fraction: t)
            )
        }
        // A bus effect takes `wet` of the voice through send 1 and leaves
        // `1 - wet` on the direct path (see Bus.setEffect).
        let device = engine.device
        let (busSend, direct) = AuxiliarySend.busEffect(busEffect, of: mix.current.direct.then(busFilter), on: device)
        busSend.apply(1, of: source, on: device, over: &mix.appliedBusSend)
        if direct != mix.appliedDirect {
            device.setDirectFilter(direct.alParameters, on: source)
            mix.appliedDirect = direct
        }
        AuxiliarySend(to: slot, through: mix.current.send.then(busFilter))
            .apply(0, of: source, on: device, over: &mix.appliedSend)
        voice.mix = mix
        voice.directGain = mix.isUsed ? mix.current.direct.gain : 1
        let turning = voice.stepDirection(source: source, to: stepEnd, engine: engine)
        let gliding = stepEnd < mix.glideEnd || turning
        voice.mix.glideDue = nil
        guard gliding else { return false }
        // A gentle glide goes on at the coarse cadence: the voice settles and
        // the pool visits it again at `glideDue`, so it asks for no step of
        // its own in the periods between.
        let coarse = Int64(Self.coarseGlidePeriods * engine.updateInterval)
        let due = (frame / coarse + 1) * coarse
        guard voice.isGentle(toward: targets, stepsLeftFrom: stepEnd, every: coarse) else { return true }
        voice.mix.glideDue = due
        return false
    }

    /// The periods between two steps of a gentle glide: a long glide (the
    /// acoustics' 40 ms, not a de-zipper) whose every step at this cadence
    /// moves each band by at most ``gentleStepAmplitude`` and the direction
    /// by at most ``gentleStepDegrees`` is stepped every other period rather
    /// than every period, and asks for no step in between.
    static let coarseGlidePeriods = 2
    /// The fewest coarse steps a glide must span to be stepped coarsely.
    static let coarseGlideSteps: Int64 = 4
    /// The largest change of a band's amplitude one step of a gentle glide
    /// makes, as a fraction of the voice's own level: 1 dB of it. A band
    /// gliding 40 dB below the voice's level moves by far less than that,
    /// whatever its step in decibels.
    static let gentleStepAmplitude: Float = 1 - 1 / 1.122
    /// The largest turn of the direction, in degrees, one step of a gentle glide makes.
    static let gentleStepDegrees: Float = 3

    /// Whether the voice's glides are long (``coarseGlideSteps``) and what
    /// is left of them (from where they are at `stepEnd`) moves each band
    /// by at most ``gentleStepAmplitude`` and the direction by at most
    /// ``gentleStepDegrees`` a step, at one step every `cadence` frames.
    /// With the engine lock held.
    ///
    /// - Parameters:
    ///   - targets: Where the direct path and the send glide to.
    ///   - stepEnd: The frame the step just made ends at.
    ///   - cadence: The frames between two coarse steps.
    func isGentle(
        toward targets: (direct: FilterGains, send: FilterGains), stepsLeftFrom stepEnd: Int64, every cadence: Int64
    )
        -> Bool
    {
        func steps(until end: Int64) -> Float { Float(max(1, (end - stepEnd + cadence - 1) / cadence)) }
        if stepEnd < mix.glideEnd {
            guard mix.glideEnd - mix.glideStart >= Self.coarseGlideSteps * cadence else { return false }
            // Each band's amplitude (broadband times shelf), against the voice's own level.
            let allowed = Self.gentleStepAmplitude * steps(until: mix.glideEnd)
            // Two calls rather than a loop over an array of the pairs: this runs on every step of a glide.
            func gentle(_ a: FilterGains, _ b: FilterGains) -> Bool {
                abs(a.gain - b.gain) <= allowed && abs(a.gain * a.gainLF - b.gain * b.gainLF) <= allowed
                    && abs(a.gain * a.gainHF - b.gain * b.gainHF) <= allowed
            }
            guard gentle(mix.current.direct, targets.direct), gentle(mix.current.send, targets.send) else {
                return false
            }
        }
        if mix.directionFrom != nil {
            guard mix.directionEnd - mix.directionStart >= Self.coarseGlideSteps * cadence,
                let heard = mix.heardDirection, let to = mix.acousticDirection ?? gameDirectionLocked()
            else {
                return false
            }
            let cosine = heard.x * to.x + heard.y * to.y + heard.z * to.z
            let allowed = min(Self.gentleStepDegrees * steps(until: mix.directionEnd), 180) * .pi / 180
            if cosine < cosf(allowed) { return false }
        }
        return true
    }
}
