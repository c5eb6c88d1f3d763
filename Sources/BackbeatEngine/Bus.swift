import BackbeatCapture
import BackbeatMedia
import BackbeatOpenAL

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A group of voices with one volume, mute and pause: the master bus, the
/// music and effects buses, and any groups a game defines.
///
/// A bus's gain multiplies into every voice on it and on its child buses.
/// Volume changes, mutes and pauses ramp over a few milliseconds so they never
/// click; ``fade(to:duration:curve:completion:)`` and ``duck(by:attack:release:until:)``
/// run in engine time.
///
/// ```swift
/// engine.musicBus.fade(to: 0.3, duration: MediaTime(seconds: 2), curve: .equalPower)
/// let duck = engine.musicBus.duck(by: -12, attack: MediaTime(seconds: 0.1), release: MediaTime(seconds: 0.5))
/// // ... a voice line plays ...
/// duck.release()
/// ```
public final class Bus: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: mutable state is read and written only under the engine lock
    // (the engine-side members check it in debug builds).

    /// The bus's name, such as `music`.
    public let name: String
    /// The bus this one feeds; nil for the master bus.
    public let parent: Bus?
    weak var engine: AudioEngine?

    private var level: Float = 1
    private var fade: Fade?
    private var muted = false
    private var paused = false
    /// Soloed by the game or a monitor (Bus+Solo.swift).
    var soloed = false
    /// Silenced because another bus is soloed and this one is on no soloed
    /// bus's path (Bus+Solo.swift); kept by the engine whenever a solo changes.
    var soloSilenced = false
    private var ducks: [Duck] = []
    private var fadeCompletion: (@Sendable () -> Void)?
    /// The bus's id in the capture that last saw it (Bus+Capture.swift), under the engine lock.
    var captureTag = CaptureTag()
    // The state the update step and the voices read, under the engine lock.
    // A debug build reaches it through properties that check the lock; a
    // release build stores it plainly, so that readers in other modules
    // load a field as before instead of calling an accessor.
    #if DEBUG
    private var _stepGain: Float = 1
    private var _stepPaused: Bool = false
    private var _stepFilter: FilterGains = .open
    private var _filterState: BusFilterState = BusFilterState()
    private var _effectState: BusEffectState = BusEffectState()
    private var _stepEffect: (slot: ALEffectSlot, wet: Float)?
    private var _snapshotLayers: [BusSnapshotLayer] = []
    private var _sessionMuted: Bool = false
    private var _sessionPaused: Bool = false

    /// ``effectiveGain(at:)`` as of the current update step, computed once
    /// per step for every voice to read.
    package var stepGain: Float {
        get {
            preconditionEngineLocked()
            return _stepGain
        }
        _modify {
            preconditionEngineLocked()
            yield &_stepGain
        }
        set {
            preconditionEngineLocked()
            _stepGain = newValue
        }
    }

    /// ``isEffectivelyPaused`` as of the current update step.
    package var stepPaused: Bool {
        get {
            preconditionEngineLocked()
            return _stepPaused
        }
        _modify {
            preconditionEngineLocked()
            yield &_stepPaused
        }
        set {
            preconditionEngineLocked()
            _stepPaused = newValue
        }
    }

    /// ``effectiveFilter(at:)`` as of the current update step.
    package var stepFilter: FilterGains {
        get {
            preconditionEngineLocked()
            return _stepFilter
        }
        _modify {
            preconditionEngineLocked()
            yield &_stepFilter
        }
        set {
            preconditionEngineLocked()
            _stepFilter = newValue
        }
    }

    /// The bus's own filter and its glide (Bus+Filter.swift).
    var filterState: BusFilterState {
        get {
            preconditionEngineLocked()
            return _filterState
        }
        _modify {
            preconditionEngineLocked()
            yield &_filterState
        }
        set {
            preconditionEngineLocked()
            _filterState = newValue
        }
    }

    /// The bus's effect (``Bus/setEffect(_:wetDryMix:)``).
    var effectState: BusEffectState {
        get {
            preconditionEngineLocked()
            return _effectState
        }
        _modify {
            preconditionEngineLocked()
            yield &_effectState
        }
        set {
            preconditionEngineLocked()
            _effectState = newValue
        }
    }

    /// The effect slot and send gain for this update step.
    package var stepEffect: (slot: ALEffectSlot, wet: Float)? {
        get {
            preconditionEngineLocked()
            return _stepEffect
        }
        _modify {
            preconditionEngineLocked()
            yield &_stepEffect
        }
        set {
            preconditionEngineLocked()
            _stepEffect = newValue
        }
    }

    /// The active mix snapshots' settings for this bus, lowest priority first (Bus+Snapshot.swift).
    package var snapshotLayers: [BusSnapshotLayer] {
        get {
            preconditionEngineLocked()
            return _snapshotLayers
        }
        _modify {
            preconditionEngineLocked()
            yield &_snapshotLayers
        }
        set {
            preconditionEngineLocked()
            _snapshotLayers = newValue
        }
    }

    /// The session's silent-switch mute, kept apart from the game's own mute.
    var sessionMuted: Bool {
        get {
            preconditionEngineLocked()
            return _sessionMuted
        }
        _modify {
            preconditionEngineLocked()
            yield &_sessionMuted
        }
        set {
            preconditionEngineLocked()
            _sessionMuted = newValue
        }
    }

    /// The session's interruption pause, kept apart from the game's own pause.
    var sessionPaused: Bool {
        get {
            preconditionEngineLocked()
            return _sessionPaused
        }
        _modify {
            preconditionEngineLocked()
            yield &_sessionPaused
        }
        set {
            preconditionEngineLocked()
            _sessionPaused = newValue
        }
    }
    #else
    /// ``effectiveGain(at:)`` and ``isEffectivelyPaused`` as of the current
    /// update step, computed once per step for every voice to read.
    package var stepGain: Float = 1
    package var stepPaused = false
    /// ``effectiveFilter(at:)`` as of the current update step.
    package var stepFilter = FilterGains.open
    /// The bus's own filter and its glide (Bus+Filter.swift).
    var filterState = BusFilterState()
    /// The bus's effect (``Bus/setEffect(_:wetDryMix:)``).
    var effectState = BusEffectState()
    /// The effect slot and send gain for this update step.
    package var stepEffect: (slot: ALEffectSlot, wet: Float)?
    /// The active mix snapshots' settings for this bus, lowest priority first (Bus+Snapshot.swift).
    package var snapshotLayers: [BusSnapshotLayer] = []
    /// The session's silent-switch mute, kept apart from the game's own mute.
    var sessionMuted = false
    /// The session's interruption pause, kept apart from the game's own pause.
    var sessionPaused = false
    #endif

    init(name: String, parent: Bus?) {
        self.name = name
        self.parent = parent
    }

    public var description: String { "Bus(\(name))" }

    func locked<T>(_ body: () -> T) -> T {
        guard let engine else { return body() }
        return engine.withLock(body)
    }

    /// Traps, in a debug build, unless the calling thread holds the engine
    /// lock (a bus whose engine is gone has nothing to check). A release
    /// build does nothing, not even load the engine.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for the trap's message.
    ///   - line: The caller's line, for the trap's message.
    @inline(__always)
    package func preconditionEngineLocked(file: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
        engine?.preconditionLocked(file: file, line: line)
        #endif
    }

    /// Engine time, with the lock held.
    private var frame: Int64 { engine?.currentFrameLocked ?? 0 }

    /// The bus's own volume, 0...1; setting it cancels a fade. NaN is
    /// ignored; values outside 0...1 are clamped.
    public var volume: Float {
        get { locked { fade?.gain(at: frame) ?? level } }
        set {
            locked { setVolumeLocked(newValue) }
        }
    }

    /// Sets ``volume`` with the engine lock held, as its setter does: NaN is
    /// ignored, the value clamped to 0...1, a fade cancelled.
    ///
    /// - Parameter newValue: The volume.
    package func setVolumeLocked(_ newValue: Float) {
        preconditionEngineLocked()
        guard !newValue.isNaN else { return }
        level = min(max(newValue, 0), 1)
        fade = nil
        fadeCompletion = nil
        recordLocked(.busVolume) { $0.append(newValue) }
    }

    /// ``volume`` with the engine lock held.
    package var volumeLocked: Float {
        preconditionEngineLocked()
        return fade?.gain(at: frame) ?? level
    }

    /// Fades the volume to `target` over `duration` of engine time.
    /// `completion` runs once, on the update step where the fade ends (or
    /// not at all if another fade or a volume change replaces it).
    ///
    /// - Parameters:
    ///   - target: The volume to reach, 0...1.
    ///   - duration: The fade's length in engine time.
    ///   - curve: How the volume moves between its ends.
    ///   - completion: Runs once when the fade reaches `target`; nil for none.
    public func fade(
        to target: Float, duration: MediaTime, curve: FadeCurve = .linear,
        completion: (@Sendable () -> Void)? = nil
    ) {
        guard !target.isNaN, let engine else { return }
        locked {
            let now = frame
            let from = fade?.gain(at: now) ?? level
            let to = min(max(target, 0), 1)
            let frames = max(0, duration.frames(atSampleRate: engine.sampleRate))
            fade = Fade(from: from, to: to, startFrame: now, frames: frames, curve: curve)
            level = to
            fadeCompletion = completion
            recordLocked(.busFade) { encoder in
                encoder.append(target)
                EngineCaptureValues.encode(duration, into: &encoder)
                EngineCaptureValues.encode(curve, into: &encoder)
            }
        }
    }

    /// Silences the bus without stopping time; ramps, so it does not click.
    public var isMuted: Bool {
        get { locked { muted } }
        set { locked { isMutedLocked = newValue } }
    }

    /// ``isMuted`` with the engine lock held.
    package var isMutedLocked: Bool {
        get {
            preconditionEngineLocked()
            return muted
        }
        set {
            preconditionEngineLocked()
            muted = newValue
            recordLocked(.busMute) { $0.append(newValue) }
        }
    }

    /// ``isPaused`` with the engine lock held.
    package var isPausedLocked: Bool {
        preconditionEngineLocked()
        return paused
    }

    /// Pauses every voice on this bus and its children; resuming continues
    /// them where they were.
    public var isPaused: Bool {
        get { locked { paused } }
        set {
            locked {
                paused = newValue
                recordLocked(.busPause) { $0.append(newValue) }
            }
        }
    }

    /// Lowers the bus by `decibels` (a negative number, such as -12) with an
    /// attack, and raises it back over `release` when the returned duck is
    /// released by ``Duck/release()``. Several ducks at once take the deepest.
    ///
    /// - Parameters:
    ///   - decibels: How far to lower the bus, in dB (negative).
    ///   - attack: How long the bus takes to get there, in engine time.
    ///   - release: How long it takes to come back once released.
    /// - Returns: The duck; release it to bring the bus back.
    @discardableResult
    public func duck(by decibels: Float, attack: MediaTime, release: MediaTime) -> Duck {
        duck(by: decibels, attack: attack, release: release, until: nil)
    }

    /// ``duck(by:attack:release:)`` that also releases by itself once `trigger`
    /// says it has finished (a voice: see the effects layer's `duck(by:attack:release:until:)`).
    package func duck(
        by decibels: Float, attack: MediaTime, release: MediaTime,
        until trigger: (any DuckReleaseTrigger)?
    ) -> Duck {
        let sampleRate = engine?.sampleRate ?? 48_000
        let depth = decibels.isNaN ? 0 : min(0, max(decibels, -96))
        let duck = Duck(
            bus: self, target: pow(10, depth / 20),
            attackFrames: max(0, attack.frames(atSampleRate: sampleRate)),
            releaseFrames: max(0, release.frames(atSampleRate: sampleRate)),
            trigger: trigger)
        locked {
            duck.begin(at: frame)
            ducks.append(duck)
            recordDuckLocked(duck, decibels: decibels, attack: attack, release: release, until: trigger)
        }
        return duck
    }

    /// A duck that releases by itself after `holdFrames` (the session's music ducking).
    func duck(gain: Float, startFrame: Int64, attackFrames: Int64, holdFrames: Int64, releaseFrames: Int64) {
        preconditionEngineLocked()
        let duck = Duck(
            bus: self, target: min(max(gain, 0), 1), attackFrames: max(0, attackFrames),
            releaseFrames: max(0, releaseFrames), trigger: nil,
            releaseAt: startFrame + max(0, attackFrames) + max(0, holdFrames))
        duck.begin(at: startFrame)
        ducks.append(duck)
    }

    // MARK: Engine side (under the engine lock)

    /// This bus's own gain at `frame`: level or fade, times ducks, times mute.
    func ownGain(at frame: Int64) -> Float {
        preconditionEngineLocked()
        if muted || sessionMuted || soloSilenced { return 0 }
        let base = snapshotVolume(over: fade?.gain(at: frame) ?? level, at: frame)
        let duckGain = ducks.reduce(Float(1)) { min($0, $1.gain(at: frame)) }
        return base * duckGain
    }

    /// The product of gains from this bus up to the master.
    ///
    /// - Parameter frame: The engine frame of the update step.
    /// - Returns: The gain, 0...1.
    package func effectiveGain(at frame: Int64) -> Float {
        preconditionEngineLocked()
        var gain = ownGain(at: frame)
        var bus = parent
        while let b = bus {
            gain *= b.ownGain(at: frame)
            bus = b.parent
        }
        return gain
    }

    /// Whether this bus or any parent is paused.
    package var isEffectivelyPaused: Bool {
        preconditionEngineLocked()
        var bus: Bus? = self
        while let b = bus {
            if b.paused || b.sessionPaused { return true }
            bus = b.parent
        }
        return false
    }

    /// Whether this bus's gain, filter or effect still moves after a step at
    /// `frame` (a fade, a duck, a glide, a mix snapshot coming in or going
    /// out, a slot still to load or empty): a
    /// device's update loop then steps every period. Engine lock held.
    ///
    /// - Parameter frame: The engine frame of the step just taken.
    /// - Returns: Whether the bus moves after that step.
    package func isChangingLocked(at frame: Int64) -> Bool {
        preconditionEngineLocked()
        return fade != nil || !ducks.isEmpty || frame < filterState.end || frame < effectState.end
            || effectState.parameters != effectState.loaded
            || snapshotLayers.contains { $0.envelope.isMoving(at: frame) }
    }

    /// Advances fades and ducks; returns the completion to run, if a fade ended.
    func update(at frame: Int64) -> (@Sendable () -> Void)? {
        preconditionEngineLocked()
        ducks.removeAll { $0.isFinished(at: frame) }
        removeFinishedSnapshotLayers(at: frame)
        for duck in ducks { duck.update(at: frame) }
        guard let current = fade, current.isComplete(at: frame) else { return nil }
        fade = nil
        defer { fadeCompletion = nil }
        return fadeCompletion
    }
}
