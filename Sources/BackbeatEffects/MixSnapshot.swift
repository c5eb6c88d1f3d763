import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

/// A named mix state, like an FMOD or Unity mixer snapshot: for any buses,
/// by name, a volume, a filter and effect parameters, and the environment
/// reverb. Every setting is optional: what a snapshot leaves nil stays as
/// the snapshots below it, or the game, set it.
///
/// ```swift
/// var pause = MixSnapshot(name: "pause menu")
/// pause.buses["effects"] = .init(volume: 0.3, filter: .lowPass(cutoff: 600))
/// pause.buses["music"] = .init(volume: 0.3, filter: .lowPass(cutoff: 600))
/// let menu = try engine.activate(pause, over: MediaTime(seconds: 0.3), priority: 10)
/// // ... the game resumes ...
/// try menu.release(over: MediaTime(seconds: 0.5), curve: .exponential)
/// ```
public struct MixSnapshot: Sendable, Equatable {
    /// What a snapshot sets on one bus; nil leaves that property alone.
    public struct BusSettings: Sendable, Equatable {
        /// The bus's volume, 0...1, in place of ``Bus/volume`` (ducks and mute still apply on top).
        public var volume: Float?
        /// The bus's filter, in place of ``Bus/filter``. To open a filtered
        /// bus, give `.gains(gain: 1, gainLF: 1, gainHF: 1)`.
        public var filter: AudioFilter?
        /// The bus's effect parameters. Of the bus's own effect's kind, each
        /// parameter glides; of another kind, the effect switches at the
        /// transition's midpoint; on a bus without an effect, it fades in.
        public var effect: BusEffect?
        /// The bus effect's wet/dry mix, 0...1 (see ``Bus/setEffect(_:wetDryMix:)``);
        /// with an ``effect`` and no mix, 1.
        public var wetDryMix: Float?

        /// Settings for one bus; every one is optional.
        ///
        /// - Parameters:
        ///   - volume: The bus's volume, 0...1; nil leaves it.
        ///   - filter: The bus's filter; nil leaves it.
        ///   - effect: The bus's effect; nil leaves it.
        ///   - wetDryMix: How much goes through the effect, 0...1; nil leaves it.
        public init(volume: Float? = nil, filter: AudioFilter? = nil, effect: BusEffect? = nil, wetDryMix: Float? = nil)
        {
            self.volume = volume
            self.filter = filter
            self.effect = effect
            self.wetDryMix = wetDryMix
        }
    }

    /// The snapshot's name, such as `pause menu`.
    public var name: String
    /// Settings by bus name (``Bus/name``): `master`, `music`, `effects`, or a game's own bus.
    public var buses: [String: BusSettings]
    /// The environment reverb while the snapshot is in: it overrides the
    /// game-wide reverb and the zones (``AudioEngine/reverbParameters``,
    /// ``AudioEngine/reverbZones``), level included; nil leaves them.
    public var reverb: AudioEnvironmentReverbParameters?

    /// A snapshot named `name` with the given settings.
    ///
    /// - Parameters:
    ///   - name: The snapshot's name, as its errors show it.
    ///   - buses: Settings by bus name; buses not named are left alone.
    ///   - reverb: The game-wide reverb to glide to; nil leaves it.
    public init(name: String, buses: [String: BusSettings] = [:], reverb: AudioEnvironmentReverbParameters? = nil) {
        self.name = name
        self.buses = buses
        self.reverb = reverb
    }
}

/// A snapshot the engine is applying, from ``AudioEngine/activate(_:over:curve:priority:)``
/// until its release has run out. The engine keeps it active until
/// ``release(over:curve:)``, even if this handle is dropped: keep it to release it.
public final class ActiveMixSnapshot: @unchecked Sendable {
    // @unchecked: the envelope is read and written only under the engine lock.

    /// The snapshot as activated.
    public let snapshot: MixSnapshot
    /// Its priority: where several set the same property, the highest wins.
    public let priority: Int
    private weak var engine: AudioEngine?
    private let envelope: SnapshotEnvelope
    /// Its id in the capture that recorded its activation (under the engine lock).
    var captureTag = CaptureTag()

    init(snapshot: MixSnapshot, priority: Int, engine: AudioEngine, envelope: SnapshotEnvelope) {
        self.snapshot = snapshot
        self.priority = priority
        self.engine = engine
        self.envelope = envelope
    }

    /// Whether ``release(over:curve:)`` was called.
    public var isReleased: Bool { engine?.withLock { envelope.isReleased } ?? true }

    /// ``isReleased``, with the engine lock held.
    var isReleasedLocked: Bool { envelope.isReleased }

    /// Starts the release at `frame` over `frames`, with the engine lock held.
    func releaseLocked(at frame: Int64, frames: Int64, curve: FadeCurve) {
        recordReleaseLocked(MediaTime(frames: frames, sampleRate: engine?.sampleRate ?? 1), curve)
        envelope.release(at: frame, frames: frames, curve: curve)
    }

    /// Ends the snapshot: every property it set glides, over `duration` of
    /// engine time along `curve`, back to what the snapshots below it or the
    /// game set. From the middle of the attack, the release starts where the
    /// attack is. A second release does nothing.
    ///
    /// - Parameters:
    ///   - duration: The glide back, in engine time (0...1 day); zero returns at once.
    ///   - curve: How volumes move back.
    /// - Throws: `.invalidArgument` for a negative duration or one over a day.
    public func release(over duration: MediaTime = .zero, curve: FadeCurve = .linear) throws {
        try MixSnapshot.check(duration, "ActiveMixSnapshot.release")
        guard let engine else { return }
        engine.withLock {
            recordReleaseLocked(duration, curve)
            envelope.release(
                at: engine.currentFrameLocked, frames: duration.frames(atSampleRate: engine.sampleRate), curve: curve)
        }
    }
}

extension MixSnapshot {
    /// The longest transition: a day.
    static let longestTransition = MediaTime(value: 86_400, timescale: 1)

    static func check(_ duration: MediaTime, _ operation: String) throws {
        guard duration >= .zero, duration <= longestTransition else {
            throw BackbeatError(
                .invalidArgument, operation: operation,
                reason: "transition \(duration.seconds) s is outside 0...\(longestTransition.seconds) s")
        }
    }

    /// Checks every value, naming the first one that is bad.
    func validate(_ operation: String) throws {
        func fail(_ reason: String) -> BackbeatError {
            BackbeatError(.invalidArgument, operation: operation, reason: "snapshot \"\(name)\": \(reason)")
        }
        for (bus, settings) in buses {
            if let v = settings.volume, v.isNaN || !(0...1).contains(v) {
                throw fail("bus \(bus) volume \(v) is outside 0...1")
            }
            if let m = settings.wetDryMix, m.isNaN || !(0...1).contains(m) {
                throw fail("bus \(bus) wet/dry mix \(m) is outside 0...1")
            }
            if let effect = settings.effect {
                do { try effect.validate() } catch let error as BackbeatError {
                    throw fail("bus \(bus): \(error.reason ?? "bad effect")")
                }
            }
        }
    }
}

extension AudioEngine {
    /// Starts `snapshot`: every property it sets moves from where it is to
    /// the snapshot's value over `duration` of engine time (zero: at once;
    /// filters, effects and the reverb still glide over the de-zipper time),
    /// volumes along `curve`. Where several active snapshots set the same
    /// property, the highest `priority` wins, and among equal priorities the
    /// latest; lower ones hold it again when it is released.
    ///
    /// - Parameters:
    ///   - snapshot: The settings to apply.
    ///   - duration: The glide's length in engine time (0...1 day).
    ///   - curve: How volumes move.
    ///   - priority: Higher wins where snapshots set the same property.
    /// - Returns: the active snapshot, to release.
    /// - Throws: `.unknownBus` for a bus name the engine has no bus by;
    ///   `.invalidArgument` for a negative duration, one over a day, or a
    ///   value out of range (one line naming it). Nothing changes then.
    @discardableResult
    public func activate(
        _ snapshot: MixSnapshot, over duration: MediaTime = .zero, curve: FadeCurve = .linear, priority: Int = 0
    ) throws -> ActiveMixSnapshot {
        try MixSnapshot.check(duration, "AudioEngine.activate")
        try snapshot.validate("AudioEngine.activate")
        return try withLock { try activateLocked(snapshot, over: duration, curve: curve, priority: priority) }
    }

    /// ``activate(_:over:curve:priority:)`` with the lock held, after its
    /// checks of the duration and values; remembers the snapshot by name for
    /// a monitor (``MixSnapshotRegistry``).
    ///
    /// - Parameters:
    ///   - snapshot: The settings to apply (validated).
    ///   - duration: The glide's length in engine time (checked).
    ///   - curve: How volumes move.
    ///   - priority: Higher wins where snapshots set the same property.
    /// - Returns: the active snapshot.
    /// - Throws: `.unknownBus` for a bus name the engine has no bus by; nothing changes then.
    func activateLocked(
        _ snapshot: MixSnapshot, over duration: MediaTime, curve: FadeCurve, priority: Int
    ) throws -> ActiveMixSnapshot {
        let rate = sampleRate
        var layers: [(Bus, MixSnapshot.BusSettings)] = []
        for (name, settings) in snapshot.buses.sorted(by: { $0.key < $1.key }) {
            guard let bus = busLocked(named: name) else {
                throw BackbeatError(
                    .unknownBus, operation: "AudioEngine.activate",
                    reason: "snapshot \"\(snapshot.name)\" names bus \"\(name)\", which the engine does not have")
            }
            layers.append((bus, settings))
        }
        let envelope = SnapshotEnvelope(
            priority: priority, start: currentFrameLocked, frames: duration.frames(atSampleRate: rate),
            curve: curve, smoothFrames: dezipperFrames, engineLock: lock)
        for (bus, settings) in layers {
            bus.addSnapshotLayerLocked(
                BusSnapshotLayer(
                    envelope: envelope, volume: settings.volume, filter: settings.filter?.gains(sampleRate: rate),
                    effect: settings.effect, wetDryMix: settings.wetDryMix))
        }
        if let reverb = snapshot.reverb {
            let mixer = environmentLocked
            let index =
                mixer.snapshotReverbs.firstIndex { envelope.ranksBelow($0.envelope) } ?? mixer.snapshotReverbs.count
            mixer.snapshotReverbs.insert((envelope, reverb), at: index)
        }
        let active = ActiveMixSnapshot(snapshot: snapshot, priority: priority, engine: self, envelope: envelope)
        _ = captureIDLocked(&active.captureTag, declaring: .effectsSnapshotActivate) { encoder in
            EffectsCaptureCoding.encode(snapshot, into: &encoder)
            EffectsCaptureCoding.encode(duration, into: &encoder)
            EffectsCaptureCoding.encode(curve, into: &encoder)
            encoder.append(priority)
        }
        effectsLocked.telemetry.snapshots.remember(active, duration: duration, curve: curve)
        return active
    }
}

extension ActiveMixSnapshot {
    /// Records a release of an activation the capture saw. With the lock held.
    fileprivate func recordReleaseLocked(_ duration: MediaTime, _ curve: FadeCurve) {
        guard let engine, let recorder = engine.captureRecorder, captureTag.generation == recorder.generation,
            !envelope.isReleased
        else { return }
        let id = captureTag.id
        engine.recordLocked(.effectsSnapshotRelease) { encoder in
            encoder.append(id)
            EffectsCaptureCoding.encode(duration, into: &encoder)
            EffectsCaptureCoding.encode(curve, into: &encoder)
        }
    }
}
