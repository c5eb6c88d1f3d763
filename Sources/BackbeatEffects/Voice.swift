import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One playing instance of a ``SoundEffect``, like an `AVAudioPlayer`: stop,
/// pause and resume it, change its volume, pan and rate while it plays, read
/// its time. Its completion runs exactly once.
///
/// A voice holds an OpenAL source only while it is audible. A positioned
/// voice heard below ``AudioEngine/audibilityThreshold`` (by its volume,
/// buses, distance and cone) gives up its source and goes on silently
/// ("virtual"), keeping its time, and takes a source back where it would be
/// when it becomes audible again. When sources run out, a more important or
/// more audible voice may take a source: a looping voice then goes virtual
/// and comes back when a source frees; a one-shot voice ends.
public final class Voice: @unchecked Sendable, Hashable, Identifiable, CustomStringConvertible, DuckReleaseTrigger {
    // @unchecked: mutable state is read and written only under the engine lock.

    /// A voice's identity, unique within the process.
    public typealias ID = VoiceID

    /// Where a voice is in its life.
    public enum State: Sendable, Equatable {
        /// Waiting for its sound to load, its scheduled time, or a source.
        case pending
        /// Audible.
        case playing
        /// Paused by ``pause()`` or by its bus.
        case paused
        /// Going on silently without a source, keeping its time; comes back
        /// when it is audible and a source is free.
        case virtual
        /// Ended; the handle does nothing more.
        case finished
    }

    enum Phase: Equatable {
        case waitingForLoad
        case scheduled(Int64)
        case waitingForSource
        case playing
        case pausing(until: Int64)
        case paused
        case stopping(until: Int64, thenVirtual: Bool)
        case virtual
        case finished
    }

    /// The voice's identity.
    public let id: ID
    /// The sound it plays.
    public let sound: SoundEffect
    /// How many times it plays its sound.
    public let looping: Looping
    /// The repeats after the first play; -1 until stopped (``Looping/extraPlays``).
    let numberOfLoops: Int
    /// Higher wins when sources run out.
    public let priority: Int

    // From `phase` to the head of `record` is what a monitor's snapshot
    // reads of every voice it visits (with the id and sound), declared
    // together so that it spans a few cache lines: a snapshot comes ten
    // times a second, when most voices are cold, and fields spread over the
    // object were a cache miss each (most of a snapshot's cost).
    var phase: Phase = .waitingForLoad {
        didSet { isSettled = false }
    }
    /// Playing with nothing to do until its queue needs a look: the update
    /// step skips it. Any change to the voice clears it.
    var isSettled = false
    var gain: Float
    var panValue: Float
    var rateValue: Float
    /// The broadband gain of the direct path's filter as the last update
    /// step set it (`mix.current.direct.gain` once the mix is used, else 1),
    /// kept here for a monitor's snapshot, which reads nothing of `mix`.
    var directGain: Float = 1
    /// The sound event that started it, if one did: what a monitor calls it by.
    var eventName: String?
    /// The gain a monitor's snapshot last listed it at, and that gain in dB:
    /// most voices hold still between snapshots, and a logarithm for each
    /// listed voice was a tenth of a snapshot's own work. (-1, -120) is what
    /// ``VoicePool/decibels(_:)`` gives -1, so it is right from the start.
    var telemetryDecibels: (gain: Float, decibels: Double) = (-1, -120)
    var renderingValue = AudioRenderingAlgorithm.automatic
    var userPaused = false
    /// Strong: buses do not hold voices, and the update step reads it for every voice.
    var bus: Bus?
    /// Where the voice is in the world; nil while it is 2D (panned). A
    /// dormant voice's point lives in the pool's table (see ``isDormant``).
    var positionValue: Audio3DPoint? {
        get {
            if record.isDormant, let pool { return pool.dormantPoint(record.slot) }
            return storedPosition
        }
        set {
            if record.isDormant, let pool {
                if let p = newValue {
                    pool.setDormantPoint(record.slot, p)
                    return
                }
                pool.wake(self)
            }
            storedPosition = newValue
        }
    }
    /// The point of a voice that is not dormant.
    var storedPosition: Audio3DPoint?
    /// The pool's bookkeeping for this voice: its row, source, queue and
    /// played time (see ``VoicePool/Record``).
    var record = VoicePool.Record()
    /// What the voice plays: the buffer it was pinned to when its sound's
    /// file was reloaded under it, else its sound's. With the engine lock held.
    var playedLoadState: SoundEffect.LoadState {
        if let pinned = record.pinned { return .loaded(pinned.resident) }
        return sound.loadState
    }
    /// How fast the voice moves, for the Doppler shift while it is positioned.
    var velocityValue = Audio3DPoint.zero
    /// Where the voice faces; nil while it is omnidirectional.
    var directionValue: Audio3DPoint?
    var coneValue = AudioCone()
    /// The voice's own distance curve; nil follows the engine's.
    var distanceValue: AudioDistanceAttenuationParameters?
    var radiusValue: Float = 0
    var completion: (@Sendable (Bool) -> Void)?
    /// The path it moves along over engine time, if any (see ``move(along:duration:)``).
    var glide: Glide? {
        didSet { if glide != nil, record.isDormant { pool?.wake(self) } }
    }
    /// Volume, rate and pan glides, if any (Voice+Ramp.swift); nil costs nothing.
    var volumeRamp: Ramp?
    var rateRamp: Ramp?
    var panRamp: Ramp?
    /// Reverb send, obstruction, occlusion and filter, with their glide (Voice+Environment.swift).
    var mix = VoiceMix()
    /// The pool it plays in, told when something that changes its audibility changes.
    weak var pool: VoicePool?

    /// Tells the pool to recompute audibility at the next update step. With the lock held.
    func audibilityChanged() {
        guard let pool else { return }
        if record.isDormant { pool.wake(self) }
        pool.audibilityDirty = true
    }

    init(
        sound: SoundEffect, volume: Float, pan: Float, rate: Float, looping: Looping, priority: Int,
        completion: (@Sendable (Bool) -> Void)?
    ) {
        self.id = ID(raw: UniqueID.next())
        self.sound = sound
        self.looping = looping
        self.numberOfLoops = looping.extraPlays
        self.priority = priority
        self.gain = Voice.clampVolume(volume, else: 1)
        self.panValue = Voice.clampPan(pan, else: 0)
        self.rateValue = Voice.clampRate(rate, else: 1)
        self.completion = completion
    }

    public var description: String { "Voice(\(id), \(sound.name))" }

    /// Whether two handles are the same voice (by ``id``).
    ///
    /// - Parameters:
    ///   - a: A voice.
    ///   - b: Another voice.
    public static func == (a: Voice, b: Voice) -> Bool { a.id == b.id }

    /// Hashes the voice by its ``id``.
    ///
    /// - Parameter hasher: The hasher to feed the voice's ``id`` to.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    var engine: AudioEngine? { sound.engine }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        guard let engine else { return try body() }
        return try engine.withLock(body)
    }

    // MARK: Clamping (documented on the properties)

    static func clampVolume(_ v: Float, else fallback: Float) -> Float { v.isNaN ? fallback : min(max(v, 0), 1) }
    static func clampPan(_ v: Float, else fallback: Float) -> Float { v.isNaN ? fallback : min(max(v, -1), 1) }
    static func clampRate(_ v: Float, else fallback: Float) -> Float { v.isNaN ? fallback : min(max(v, 0.5), 2) }

    // MARK: Public API

    /// The voice's state.
    public var state: State { locked { stateLocked } }

    /// ``state``, with the lock held.
    var stateLocked: State {
        #if DEBUG
        engine?.preconditionLocked()
        #endif
        return switch phase {
        case .waitingForLoad, .scheduled, .waitingForSource: .pending
        case .playing, .stopping: .playing
        case .pausing, .paused: .paused
        case .virtual: .virtual
        case .finished: .finished
        }
    }

    /// Whether the voice is audible now (or about to be, ramping).
    public var isPlaying: Bool { state == .playing }

    /// Whether the voice has ended.
    public var isFinished: Bool { locked { phase == .finished } }
    package var isFinishedLocked: Bool {
        #if DEBUG
        engine?.preconditionLocked()
        #endif
        return phase == .finished
    }

    /// Sets the volume with the engine lock held (clamped; NaN ignored).
    package func setVolumeLocked(_ value: Float) {
        #if DEBUG
        engine?.preconditionLocked()
        #endif
        gain = Voice.clampVolume(value, else: gain)
        isSettled = false
        audibilityChanged()
    }

    /// Sets the rate with the engine lock held (clamped; NaN ignored).
    package func setRateLocked(_ value: Float) {
        #if DEBUG
        engine?.preconditionLocked()
        #endif
        // A dormant voice's time so far went at its old rate.
        if record.isDormant { pool?.wake(self) }
        rateValue = Voice.clampRate(value, else: rateValue)
        record.nextQueueCheck = 0  // the queue now lasts a different time
        isSettled = false
        if let source = record.source, let engine { _ = try? engine.device.withContext { source.setPitch(rateValue) } }
    }

    /// Volume, 0...1. Values outside are clamped; NaN is ignored. Setting it
    /// ends a glide (``setVolume(_:over:curve:)``); the change itself ramps
    /// over one update period.
    public var volume: Float {
        get { locked { gain } }
        set {
            locked {
                volumeRamp = nil
                setVolumeLocked(newValue)
                recordLocked(.volume) { $0.append(newValue) }
            }
        }
    }

    /// Pan, -1 (left) ... 1 (right). Values outside are clamped; NaN is ignored.
    /// Setting it ends a glide (``setPan(_:over:curve:)``); the change itself
    /// ramps over one update period.
    public var pan: Float {
        get { locked { panValue } }
        set {
            locked {
                panRamp = nil
                panValue = Voice.clampPan(newValue, else: panValue)
                recordLocked(.pan) { $0.append(newValue) }
                if positionValue == nil, let source = record.source, let engine {
                    _ = try? engine.device.withContext { applyPlacement(to: source) }
                }
            }
        }
    }

    /// Where the voice sounds in the world, in metres; nil (the default) keeps it
    /// 2D, placed by ``pan``.
    ///
    /// A positioned voice is heard from that point by a listener at the origin
    /// facing -Z (+X right, +Y up): its side gives the balance between the ears,
    /// and its distance attenuates it by the engine's
    /// ``AudioEngine/distanceAttenuationParameters`` (by default
    /// gain = 1 / max(d, 1), -6 dB per doubling beyond one metre). While a voice
    /// is positioned, ``pan`` is kept but not applied; setting the position back
    /// to nil pans it again. A point with a NaN or infinite coordinate is ignored.
    /// Stereo sounds are placed too: both channels sound from the point.
    public var position: Audio3DPoint? {
        get { locked { positionValue } }
        set {
            locked {
                if let newValue, !newValue.isFinite { return }
                recordLocked(.position) { EffectsCaptureCoding.encode(newValue, into: &$0) }
                let wasPlaced = positionValue != nil
                positionValue = newValue
                glide = nil  // placed by hand: a path it was on stops here
                // A dormant voice stays asleep: the audibility pass looks at its new point.
                pool?.audibilityDirty = true
                guard let source = record.source, let engine else { return }
                _ = try? engine.device.withContext {
                    // Moving a placed voice changes only its position; the rest was set when it was placed.
                    if wasPlaced, renderingValue != .stereoPassThrough, let point = newValue {
                        let p = heardPointLocked(point)
                        source.move(x: p.x, y: p.y, z: p.z)
                    } else {
                        applyPlacement(to: source)
                    }
                }
            }
        }
    }

    /// How fast the voice moves through the world, in metres per second
    /// (default zero). While the voice is positioned, its speed towards or away
    /// from the listener (and the listener's ``AudioEngine/listenerVelocity``)
    /// shift its pitch by the Doppler effect, scaled by
    /// ``AudioEngine/dopplerFactor`` at ``AudioEngine/speedOfSound``. It does
    /// not move ``position``: move the voice yourself. A 2D voice has no
    /// Doppler shift. A vector with a NaN or infinite component is ignored.
    public var velocity: Audio3DPoint {
        get { locked { velocityValue } }
        set {
            locked {
                guard newValue.isFinite else { return }
                recordLocked(.velocity) { EffectsCaptureCoding.encode(newValue, into: &$0) }
                velocityValue = newValue
                reapplyPlacementIfPositioned()
            }
        }
    }

    /// Where a positioned voice faces (a vector; its length does not matter),
    /// or nil (the default) to sound the same in every direction. A listener
    /// outside the voice's ``cone`` around this direction hears it quieter.
    /// A vector with a NaN or infinite component, or a zero vector, is ignored.
    public var direction: Audio3DPoint? {
        get { locked { directionValue } }
        set {
            locked {
                if let newValue, !newValue.isFinite || newValue == .zero { return }
                recordLocked(.direction) { EffectsCaptureCoding.encode(newValue, into: &$0) }
                directionValue = newValue
                audibilityChanged()
                reapplyPlacementIfPositioned()
            }
        }
    }

    /// How the voice's level falls off away from its ``direction``
    /// (no effect while it has none, or while it is 2D). Cones that are not
    /// ``AudioCone/isValid`` are ignored.
    public var cone: AudioCone {
        get { locked { coneValue } }
        set {
            locked {
                guard newValue.isValid else { return }
                recordLocked(.cone) { EffectsCaptureCoding.encode(newValue, into: &$0) }
                coneValue = newValue
                audibilityChanged()
                reapplyPlacementIfPositioned()
            }
        }
    }

    /// The voice's own distance curve (AVAudio3DMixing has none: OpenAL's
    /// AL_EXT_source_distance_model), overriding the engine's
    /// ``AudioEngine/distanceAttenuationParameters`` while it is set. nil (the
    /// default) follows the engine's. Parameters that are not
    /// ``AudioDistanceAttenuationParameters/isValid`` are ignored.
    public var distanceAttenuationParameters: AudioDistanceAttenuationParameters? {
        get { locked { distanceValue } }
        set {
            locked {
                if let newValue, !newValue.isValid { return }
                recordLocked(.distance) { e in e.appendOptional(newValue) { EffectsCaptureCoding.encode($1, into: &$0) }
                }
                distanceValue = newValue
                audibilityChanged()
                reapplyPlacementIfPositioned()
            }
        }
    }

    /// The radius of the sound's source in metres (default 0, a point). A
    /// positioned voice with a radius is a sphere of sound: from outside it
    /// comes from its direction, narrower the farther away; inside it
    /// surrounds the listener (AL_EXT_SOURCE_RADIUS). A waterfall, a crowd or
    /// a machine room has one. Negative, NaN or infinite values are ignored.
    public var sourceRadius: Float {
        get { locked { radiusValue } }
        set {
            locked {
                guard newValue.isFinite, newValue >= 0 else { return }
                recordLocked(.radius) { $0.append(newValue) }
                radiusValue = newValue
                reapplyPlacementIfPositioned()
            }
        }
    }

    /// How the voice is rendered (AVAudio3DMixing.renderingAlgorithm):
    /// `.automatic` (the default) places or pans it as the engine's
    /// ``AudioEngine/outputType`` says; `.stereoPassThrough` sends its channels
    /// straight to the outputs, for music and UI sounds that must not move.
    public var renderingAlgorithm: AudioRenderingAlgorithm {
        get { locked { renderingValue } }
        set {
            locked {
                renderingValue = newValue
                recordLocked(.rendering) {
                    $0.appendFixed(UInt8(AudioRenderingAlgorithm.allCases.firstIndex(of: newValue) ?? 0))
                }
                audibilityChanged()
                if let source = record.source, let engine {
                    _ = try? engine.device.withContext { applyPlacement(to: source) }
                }
            }
        }
    }

    /// With the voice's lock held.
    private func reapplyPlacementIfPositioned() {
        if positionValue != nil, let source = record.source, let engine {
            _ = try? engine.device.withContext { applyPlacement(to: source) }
        }
    }

    /// Applies the voice's position, or its pan while it has none, to its source.
    /// Call with the engine lock held and the device's context current.
    func applyPlacement(to source: ALSource) {
        if renderingValue == .stereoPassThrough {
            source.setPassThrough()
        } else if let point = positionValue {
            let p = heardPointLocked(point)
            let d =
                distanceValue ?? engine?.listenerLocked.distanceParameters ?? AudioDistanceAttenuationParameters()
            source.setPosition(
                x: p.x, y: p.y, z: p.z, distanceModel: Listener.model(d.distanceAttenuationModel),
                referenceDistance: d.referenceDistance, maximumDistance: d.maximumDistance,
                rolloffFactor: d.rolloffFactor, velocity: (velocityValue.x, velocityValue.y, velocityValue.z),
                radius: radiusValue)
            let facing = directionValue ?? .zero
            source.setCone(
                direction: (facing.x, facing.y, facing.z), innerAngle: coneValue.innerAngle,
                outerAngle: coneValue.outerAngle, outerGain: coneValue.outerGain,
                outerHighFrequencyGain: coneValue.outerHighFrequencyGain)
        } else {
            source.setPan(panValue)
        }
    }

    /// Playback rate (and pitch), 0.5...2. Values outside are clamped; NaN is
    /// ignored. Setting it ends a glide (``setRate(_:over:curve:)``).
    public var rate: Float {
        get { locked { rateValue } }
        set {
            locked {
                rateRamp = nil
                setRateLocked(newValue)
                recordLocked(.rate) { $0.append(newValue) }
            }
        }
    }

    /// The position in the sound (within the current loop). For a sound with
    /// loop points: in the intro until it has played, then in the loop region
    /// (a time `t` after the start is `t` before the region's start, else
    /// `start + (t - start) mod length`), then in the tail.
    public var currentTime: MediaTime {
        locked {
            guard case .loaded(let r) = playedLoadState else { return .zero }
            let frames = engine?.voicePoolLocked.position(of: self, resident: r) ?? 0
            return MediaTime(frames: Int64(frames), sampleRate: r.sampleRate)
        }
    }

    /// How many times the voice has come round to the start of its sound, or
    /// of its loop region when the sound has loop points (0 during its first
    /// play). It keeps counting while the voice is virtual.
    public var loopCount: Int {
        locked {
            guard case .loaded(let r) = playedLoadState, r.frames > 0 else { return 0 }
            let played = engine?.voicePoolLocked.playedFrames(of: self) ?? 0
            return VoicePool.place(played: Double(played), resident: r, loops: numberOfLoops).loop
        }
    }

    /// The sound's length (one loop), or zero until it has loaded.
    public var duration: MediaTime { sound.duration ?? .zero }

    /// Stops the voice with a short fade; its completion runs with `false`.
    /// Stopping a finished voice does nothing.
    public func stop() {
        guard let engine else { return }
        engine.withLock {
            recordLocked(.stop)
            engine.voicePoolLocked.stopLocked(self)
        }
        engine.deliverPendingEvents()
    }

    /// Pauses the voice with a short fade, keeping its position.
    ///
    /// - Throws: ``BackbeatError/Code/voiceFinished`` if it has ended.
    public func pause() throws {
        try locked {
            guard phase != .finished else {
                throw BackbeatError(.voiceFinished, operation: "Voice.pause", reason: "\(self)")
            }
            userPaused = true
            recordLocked(.pause)
            isSettled = false
            audibilityChanged()
        }
    }

    /// Resumes a paused voice where it was.
    ///
    /// - Throws: ``BackbeatError/Code/voiceFinished`` if it has ended.
    public func resume() throws {
        try locked {
            guard phase != .finished else {
                throw BackbeatError(.voiceFinished, operation: "Voice.resume", reason: "\(self)")
            }
            userPaused = false
            recordLocked(.resume)
            isSettled = false
            audibilityChanged()
        }
    }

    /// Marks a voice that never reached an engine as finished.
    func finishDetached() {
        phase = .finished
        completion = nil
    }
}
