import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

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

/// A named container of sounds that plays a variation on every trigger:
/// footsteps that never sound twice the same, built from a few samples.
///
/// Each ``play(at:volume:position:bus:)`` picks a sound by the event's ``mode``
/// (random with weights and "avoid the last N", shuffle, sequence, or all of
/// them at once), randomizes its volume, pitch, pan (or 3D position) and start
/// delay within the event's ``Randomization`` ranges, and plays it like
/// ``SoundEffect/play(at:volume:pan:position:rate:looping:priority:bus:completion:)``.
/// A ``cooldown`` in engine time and ``maximumInstances`` with a
/// ``StealPolicy`` keep a busy event in bounds.
///
/// The randomness comes from a seeded generator: two events made with the same
/// seed and played the same way make the same choices, so an offline render
/// repeats exactly.
///
/// ```swift
/// let steps = try SoundEvent(name: "footstep", sounds: [step1, step2, step3], mode: .random, seed: 7)
/// steps.avoidRepeatingLast = 1
/// steps.randomization = .init(volumeDecibels: -3...0, pitchCents: -50...50)
/// steps.play()
/// ```
public final class SoundEvent: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: mutable state is read and written only under the engine lock
    // (the engine of its sounds), or under the event's own lock without one;
    // the `…Locked` members check it in debug builds.

    /// How an event picks what to play.
    public enum PlaybackMode: String, Sendable, Hashable, Codable, CaseIterable {
        /// A random sound on each play, by ``SoundEvent/weights``, never one of
        /// the last ``SoundEvent/avoidRepeatingLast`` picks.
        case random
        /// Every sound once in a random order, then again in a new order: no
        /// sound repeats until all have played (nor twice in a row across rounds).
        case shuffle
        /// The sounds in order, then from the first again.
        case sequence
        /// All the sounds at once, layered, starting on the same frame.
        case layered
    }

    /// What a play does when the event already has ``SoundEvent/maximumInstances`` playing.
    public enum StealPolicy: String, Sendable, Hashable, Codable, CaseIterable {
        /// Stops the instance that started first and plays.
        case oldest
        /// Stops the instance with the lowest volume and plays.
        case quietest
        /// Refuses the new play.
        case none
    }

    /// The ranges a play draws its variation from, uniformly. Zero-width
    /// ranges (the default) vary nothing.
    public struct Randomization: Sendable, Hashable {
        /// Volume change in decibels, added to the event's ``SoundEvent/volume``
        /// (clamped to -120...24; the result is clamped to 0...1).
        public var volumeDecibels: ClosedRange<Float>
        /// Pitch change in cents (1200 to the octave), clamped to -1200...1200.
        /// It changes the playback rate, and so the length, as a turntable would.
        public var pitchCents: ClosedRange<Float>
        /// Pan of a 2D play, -1 (left) ... 1 (right) (clamped).
        public var pan: ClosedRange<Float>
        /// The largest offset, in metres, added on each axis to the position
        /// of a 3D play (each axis uniformly in -offset...offset). Negative or
        /// non-finite components count as zero.
        public var positionOffset: Audio3DPoint
        /// Delay before the sound starts, added to the play's time (clamped to 0...60 s).
        public var startDelay: ClosedRange<MediaTime>

        /// Ranges for a play's variation; the defaults vary nothing.
        ///
        /// - Parameters:
        ///   - volumeDecibels: Gain in dB added to each play, picked in this range.
        ///   - pitchCents: Pitch change in cents, picked in this range (-1200...1200).
        ///   - pan: Pan of a 2D play, picked in this range (-1...1).
        ///   - positionOffset: The largest offset in metres on each axis of a 3D play.
        ///   - startDelay: Delay before each play starts, picked in this range (0...60 s).
        public init(
            volumeDecibels: ClosedRange<Float> = 0...0, pitchCents: ClosedRange<Float> = 0...0,
            pan: ClosedRange<Float> = 0...0, positionOffset: Audio3DPoint = .zero,
            startDelay: ClosedRange<MediaTime> = .zero ... .zero
        ) {
            self.volumeDecibels = volumeDecibels
            self.pitchCents = pitchCents
            self.pan = pan
            self.positionOffset = positionOffset
            self.startDelay = startDelay
        }

        /// The ranges within their documented bounds.
        var bounded: Randomization {
            func clamp(_ r: ClosedRange<Float>, _ lo: Float, _ hi: Float) -> ClosedRange<Float> {
                let a = min(max(r.lowerBound, lo), hi)
                let b = min(max(r.upperBound, lo), hi)
                return a...b
            }
            func axis(_ v: Float) -> Float { v.isFinite && v > 0 ? v : 0 }
            let maxDelay = MediaTime(seconds: 60)
            let d0 = min(max(startDelay.lowerBound, .zero), maxDelay)
            let d1 = min(max(startDelay.upperBound, .zero), maxDelay)
            return Randomization(
                volumeDecibels: clamp(volumeDecibels, -120, 24), pitchCents: clamp(pitchCents, -1200, 1200),
                pan: clamp(pan, -1, 1),
                positionOffset: Audio3DPoint(
                    x: axis(positionOffset.x), y: axis(positionOffset.y), z: axis(positionOffset.z)),
                startDelay: d0...d1)
        }
    }

    /// One play's decisions: the sounds it picked and how they vary.
    package struct Pick: Sendable, Equatable {
        /// Indices into ``SoundEvent/sounds``.
        package var indices: [Int]
        package var gain: Float
        package var rate: Float
        package var pan: Float
        package var offset: Audio3DPoint
        package var delay: MediaTime
    }

    /// One play of the event still sounding: its voices and its volume.
    struct Instance {
        let voices: [Voice]
        let gain: Float
        let order: UInt64
    }

    /// The event's name.
    public let name: String
    /// The sounds it picks from, in the order given (a bank's reload may change them).
    public var sounds: [SoundEffect] { locked { soundsValue } }
    /// The weight of each sound in ``PlaybackMode/random`` mode (all 1 unless given).
    public var weights: [Double] { locked { weightsValue } }
    var soundsValue: [SoundEffect]
    var weightsValue: [Double]
    /// The bank whose reload removed the event (its plays are refused), or nil.
    var removedFrom: String?
    /// Whether a refused play of a removed event has said so (it says so once).
    var removalReported = false
    let engine: AudioEngine?
    private let ownLock = Lock()
    /// The bank that made it, if one did (a capture names it by its bank).
    weak var bank: SoundBank?
    /// Its id in the capture that last saw it (under the engine lock).
    var captureTag = CaptureTag()

    var modeValue: PlaybackMode
    var avoidLast = 0
    var randomizationValue = Randomization()
    var volumeValue: Float = 1
    var priorityValue = 0
    var busValue: Bus?
    var cooldownValue: MediaTime = .zero
    var instanceLimit: Int?
    var stealPolicyValue: StealPolicy = .oldest
    /// How each sound plays: `.forever` for a bank sound with a loop region
    /// (its voice loops until stopped), else once. Set before the event is shared.
    package var soundLooping: [Looping] = []

    var generator: SplitMix64
    /// Most recent picks last (random mode's "avoid the last N").
    var history: [Int] = []
    /// What shuffle still has to play this round, next last.
    var bag: [Int] = []
    var lastShuffled: Int?
    var sequenceNext = 0
    var lastTriggerFrame: Int64?
    var instances: [Instance] = []
    var instanceCounter: UInt64 = 0

    /// An event over `sounds`.
    ///
    /// - Parameters:
    ///   - name: the event's name (a bank's key for it).
    ///   - sounds: one or more sounds, all of the same engine.
    ///   - mode: how a play picks (default ``PlaybackMode/random``).
    ///   - weights: one weight per sound for random mode, finite and not
    ///     negative, at least one above zero (nil: all equal).
    ///   - seed: seeds the event's generator; the same seed makes the same choices.
    /// - Throws: ``BackbeatError/Code/invalidSoundEvent`` for no sounds, sounds
    ///   of different engines, or bad weights.
    public init(
        name: String, sounds: [SoundEffect], mode: PlaybackMode = .random, weights: [Double]? = nil,
        seed: UInt64 = 0
    ) throws {
        func invalid(_ reason: String) -> BackbeatError {
            BackbeatError(.invalidSoundEvent, operation: "SoundEvent(\"\(name)\")", reason: reason)
        }
        guard !sounds.isEmpty else { throw invalid("it has no sounds") }
        let engine = sounds[0].engine
        guard sounds.allSatisfy({ $0.engine === engine }) else {
            throw invalid("its sounds belong to different engines")
        }
        let weights = weights ?? Array(repeating: 1, count: sounds.count)
        guard weights.count == sounds.count else {
            throw invalid("\(weights.count) weights for \(sounds.count) sounds")
        }
        if let bad = weights.first(where: { !$0.isFinite || $0 < 0 }) {
            throw invalid("weight \(bad) is not a finite number at least 0")
        }
        guard weights.contains(where: { $0 > 0 }) else { throw invalid("every weight is 0") }
        self.name = name
        self.soundsValue = sounds
        self.weightsValue = weights
        self.modeValue = mode
        self.engine = engine
        self.generator = SplitMix64(seed: seed)
    }

    public var description: String { "SoundEvent(\(name), \(modeValue), \(soundsValue.count) sounds)" }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        if let engine { return try engine.withLock(body) }
        return try ownLock.withLock(body)
    }

    /// Traps, in a debug build, unless the calling thread holds the lock
    /// that guards the event: its engine's, or its own without one. A release
    /// build does nothing.
    @inline(__always)
    private func preconditionLocked(file: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
        if let engine {
            engine.preconditionLocked(file: file, line: line)
        } else {
            ownLock.preconditionHeld("a sound event without an engine", file: file, line: line)
        }
        #endif
    }

    // MARK: Settings

    /// How a play picks its sounds. Changing it starts the new mode afresh.
    public var mode: PlaybackMode {
        get { locked { modeValue } }
        set {
            locked {
                let id = captureIDLocked(engine)
                modeValue = newValue
                bag = []
                sequenceNext = 0
                recordSettingLocked(id, .mode) { $0.append(newValue.rawValue) }
            }
        }
    }

    /// In random mode, a pick is never one of the last this many picks
    /// (default 0). Bounded by the sounds less one, so there is always a choice;
    /// negative counts as 0.
    public var avoidRepeatingLast: Int {
        get { locked { avoidLast } }
        set {
            locked {
                let id = captureIDLocked(engine)
                avoidLast = max(0, newValue)
                recordSettingLocked(id, .avoidRepeatingLast) { $0.append(newValue) }
            }
        }
    }

    /// The ranges each play draws its variation from.
    public var randomization: Randomization {
        get { locked { randomizationValue } }
        set {
            locked {
                let id = captureIDLocked(engine)
                randomizationValue = newValue.bounded
                recordSettingLocked(id, .randomization) { SoundEvent.encode(newValue, into: &$0) }
            }
        }
    }

    /// The event's volume, 0...1, before its random change (clamped; NaN is ignored).
    public var volume: Float {
        get { locked { volumeValue } }
        set {
            locked {
                let id = captureIDLocked(engine)
                volumeValue = Voice.clampVolume(newValue, else: volumeValue)
                recordSettingLocked(id, .volume) { $0.append(newValue) }
            }
        }
    }

    /// The priority of its voices when sources run out (default 0).
    public var priority: Int {
        get { locked { priorityValue } }
        set {
            locked {
                let id = captureIDLocked(engine)
                priorityValue = newValue
                recordSettingLocked(id, .priority) { $0.append(newValue) }
            }
        }
    }

    /// The bus its plays go to when a play names none (nil: the engine's effects bus).
    public var bus: Bus? {
        get { locked { busValue } }
        set {
            locked {
                let id = captureIDLocked(engine)
                busValue = newValue
                recordSettingLocked(id, .bus) { e in
                    if let engine { EffectsCaptureCoding.encode(newValue, engine: engine, into: &e) }
                }
            }
        }
    }

    /// Plays closer together than this in engine time are refused (zero, the
    /// default: no limit; negative counts as zero).
    public var cooldown: MediaTime {
        get { locked { cooldownValue } }
        set {
            locked {
                let id = captureIDLocked(engine)
                cooldownValue = max(.zero, newValue)
                recordSettingLocked(id, .cooldown) { EffectsCaptureCoding.encode(newValue, into: &$0) }
            }
        }
    }

    /// At most this many plays of the event sound at once (nil, the default:
    /// no limit; less than 1 counts as 1). A play beyond it follows ``stealPolicy``.
    public var maximumInstances: Int? {
        get { locked { instanceLimit } }
        set {
            locked {
                let id = captureIDLocked(engine)
                instanceLimit = newValue.map { max(1, $0) }
                recordSettingLocked(id, .maximumInstances) { e in e.appendOptional(newValue) { $0.append($1) } }
            }
        }
    }

    /// What a play beyond ``maximumInstances`` does (default ``StealPolicy/oldest``).
    public var stealPolicy: StealPolicy {
        get { locked { stealPolicyValue } }
        set {
            locked {
                let id = captureIDLocked(engine)
                stealPolicyValue = newValue
                recordSettingLocked(id, .stealPolicy) { $0.append(newValue.rawValue) }
            }
        }
    }

    /// Plays of the event that have not finished.
    public var activeInstanceCount: Int {
        locked {
            pruneInstancesLocked()
            return instances.count
        }
    }

    /// Starts the generator again from `seed`, and forgets past picks.
    ///
    /// - Parameter seed: Any value; the same seed gives the same picks.
    public func reseed(_ seed: UInt64) {
        locked {
            if let engine, let id = captureIDLocked(engine) {
                engine.recordLocked(.effectsEventReseed) { encoder in
                    encoder.append(id)
                    encoder.appendFixed(seed)
                }
            }
            generator = SplitMix64(seed: seed)
            history = []
            bag = []
            lastShuffled = nil
            sequenceNext = 0
        }
    }

    // MARK: Playing

    /// Plays a variation of the event and returns its voices (one, or one per
    /// sound in layered mode). Never throws or blocks; an empty result means
    /// the play was refused: within the ``cooldown``, or at
    /// ``maximumInstances`` with the ``StealPolicy/none`` policy.
    ///
    /// - Parameters:
    ///   - time: when to be heard, in engine time (nil: now); the random start
    ///     delay is added to it.
    ///   - volume: this play's gain, 0...1, times the event's ``volume`` and
    ///     its random change (clamped; NaN means 1): a pad's velocity.
    ///   - position: where in 3D to play, plus the random position offset (nil:
    ///     2D, panned by the random pan). A point with a NaN or infinite
    ///     coordinate plays 2D.
    ///   - bus: the bus to play on (nil: the event's ``bus``).
    @discardableResult
    public func play(
        at time: MediaTime? = nil, volume: Float = 1, position: Audio3DPoint? = nil, bus: Bus? = nil
    ) -> [Voice] {
        guard let engine else { return [] }
        let voices: [Voice] = engine.withLock {
            if let bank = removedFrom {
                if !removalReported {
                    removalReported = true
                    engine.logLocked(
                        .warning,
                        "Sound event \"\(name)\" was removed from \(bank) by its reload; its plays are refused",
                        key: "eventRemoved:\(name)", problem: "eventRemoved")
                }
                return []
            }
            // Declared before the play draws from the generator, so a replay starts from the same state.
            let captureID = captureIDLocked(engine)
            let (calledOn, started) = playLocked(
                engine: engine, at: time, volume: volume, position: position, bus: bus)
            if let captureID {
                // On a device, stamped with the frame the mixer started it on (as a sound's play).
                let heard = time == nil ? started.lazy.compactMap { $0.heardStartFrameLocked(engine) }.first : nil
                recordPlayLocked(
                    captureID, engine: engine, frame: max(calledOn, heard ?? calledOn), at: time, volume: volume,
                    position: position, bus: bus, started)
            }
            return started
        }
        engine.deliverPendingEvents()
        return voices
    }

    /// ``play(at:volume:position:bus:)`` with the lock held: the engine
    /// frame it was called on, and the voices it started (none when refused).
    private func playLocked(engine: AudioEngine, at time: MediaTime?, volume: Float, position: Audio3DPoint?, bus: Bus?)
        -> (frame: Int64, voices: [Voice])
    {
        let now = engine.currentFrameLocked
        let requested =
            time.map { max(now, $0.frames(atSampleRate: engine.sampleRate, rounding: .nearest)) } ?? now
        if cooldownValue > .zero, let last = lastTriggerFrame,
            requested - last < cooldownValue.frames(atSampleRate: engine.sampleRate, rounding: .up)
        {
            return (now, [])
        }
        pruneInstancesLocked()
        var victims: [Instance] = []
        if let limit = instanceLimit, instances.count >= limit {
            guard stealPolicyValue != .none else { return (now, []) }
            let excess = instances.count - limit + 1
            let ordered =
                stealPolicyValue == .oldest
                ? instances.sorted { $0.order < $1.order }
                : instances.sorted { ($0.gain, $0.order) < ($1.gain, $1.order) }
            victims = Array(ordered.prefix(excess))
            let stolen = Set(victims.map(\.order))
            instances.removeAll { stolen.contains($0.order) }
        }
        lastTriggerFrame = requested
        var pick = nextPickLocked()
        pick.gain = Voice.clampVolume(pick.gain * Voice.clampVolume(volume, else: 1), else: pick.gain)
        let start =
            time == nil && pick.delay == .zero
            ? nil : MediaTime(frames: requested, sampleRate: engine.sampleRate) + pick.delay
        let placed: Audio3DPoint? = position.flatMap { p in
            guard p.isFinite else { return nil }
            return Audio3DPoint(x: p.x + pick.offset.x, y: p.y + pick.offset.y, z: p.z + pick.offset.z)
        }
        let target = bus ?? busValue ?? engine.effectsBus
        let pool = engine.voicePoolLocked
        for victim in victims {
            for voice in victim.voices { pool.stopLocked(voice) }
        }
        var started: [Voice] = []
        for index in pick.indices {
            let voice = Voice(
                sound: soundsValue[index], volume: pick.gain, pan: pick.pan, rate: pick.rate,
                looping: index < soundLooping.count ? soundLooping[index] : .once,
                priority: priorityValue, completion: nil)
            if let placed, placed.isFinite { voice.positionValue = placed }
            voice.eventName = name
            pool.startLocked(voice, at: start, bus: target)
            started.append(voice)
        }
        instanceCounter &+= 1
        instances.append(Instance(voices: started, gain: pick.gain, order: instanceCounter))
        return (now, started)
    }

    /// Forgets instances whose voices have all finished. With the lock held.
    private func pruneInstancesLocked() {
        #if DEBUG
        preconditionLocked()
        #endif
        instances.removeAll { $0.voices.allSatisfy(\.isFinishedLocked) }
    }

    /// Draws the next play's decisions as ``play(at:volume:position:bus:)`` would,
    /// advancing the generator, without playing: for tools and tests.
    package func nextPick() -> Pick { locked { nextPickLocked() } }

    /// The next play's decisions, with the lock held.
    func nextPickLocked() -> Pick {
        #if DEBUG
        preconditionLocked()
        #endif
        let indices: [Int]
        switch modeValue {
        case .random: indices = [pickRandom()]
        case .shuffle: indices = [pickShuffled()]
        case .sequence:
            let index = sequenceNext % soundsValue.count
            sequenceNext = (index + 1) % soundsValue.count
            indices = [index]
        case .layered: indices = Array(soundsValue.indices)
        }
        let r = randomizationValue
        let decibels = draw(r.volumeDecibels)
        let gain = Voice.clampVolume(volumeValue * Float(pow(10, Double(decibels) / 20)), else: volumeValue)
        let rate = Voice.clampRate(Float(pow(2, Double(draw(r.pitchCents)) / 1200)), else: 1)
        let pan = draw(r.pan)
        let offset = Audio3DPoint(
            x: draw(-r.positionOffset.x...r.positionOffset.x), y: draw(-r.positionOffset.y...r.positionOffset.y),
            z: draw(-r.positionOffset.z...r.positionOffset.z))
        let delay: MediaTime
        if r.startDelay.lowerBound == r.startDelay.upperBound {
            delay = r.startDelay.lowerBound
        } else {
            let span = (r.startDelay.upperBound - r.startDelay.lowerBound).seconds
            delay = r.startDelay.lowerBound + MediaTime(seconds: span * generator.nextUnit())
        }
        return Pick(indices: indices, gain: gain, rate: rate, pan: pan, offset: offset, delay: delay)
    }

    /// A uniform value in `range`; a zero-width range draws nothing from the
    /// generator, so adding a range to one setting leaves the others' draws alone.
    private func draw(_ range: ClosedRange<Float>) -> Float {
        guard range.lowerBound < range.upperBound else { return range.lowerBound }
        let u = Float(generator.nextUnit())
        return min(range.upperBound, range.lowerBound + (range.upperBound - range.lowerBound) * u)
    }

    private func pickRandom() -> Int {
        // Avoid the last N, keeping at least one sound with weight to pick;
        // if zero-weight sounds leave nothing, avoid fewer.
        var avoid = min(avoidLast, soundsValue.count - 1, history.count)
        var total = 0.0
        var excluded = Set<Int>()
        while true {
            excluded = Set(history.suffix(avoid))
            total = 0
            for (i, w) in weightsValue.enumerated() where !excluded.contains(i) { total += w }
            if total > 0 || avoid == 0 { break }
            avoid -= 1
        }
        var target = generator.nextUnit() * total
        var chosen = -1
        for (i, w) in weightsValue.enumerated() where !excluded.contains(i) && w > 0 {
            chosen = i
            if target < w { break }
            target -= w
        }
        let keep = max(avoidLast, 1)
        history.append(chosen)
        if history.count > keep { history.removeFirst(history.count - keep) }
        return chosen
    }

    private func pickShuffled() -> Int {
        if bag.isEmpty {
            bag = Array(soundsValue.indices)
            generator.shuffle(&bag)
            // `bag` plays from its end: keep the round's first pick off the last one.
            if bag.count > 1, let last = lastShuffled, bag[bag.count - 1] == last {
                let other = generator.below(bag.count - 1)
                bag.swapAt(other, bag.count - 1)
            }
        }
        let index = bag.removeLast()
        lastShuffled = index
        return index
    }
}
