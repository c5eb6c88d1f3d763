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
import BackbeatOpenAL
import BackbeatMedia
import BackbeatEngine

/// Decides which logical voice gets which OpenAL source.
///
/// Sources are a fixed pool, generated when the engine opens from what the
/// device grants (less a reserve for music streams). A small part of the pool
/// is held back for hand-offs, so a stolen voice can fade out on its own
/// source while the newcomer starts at once on another. Voices beyond the
/// sources are either refused (one-shots) or virtual (loops), and any number
/// of logical voices can exist.
///
/// Every stop, pause and steal ramps the gain to zero first (OpenAL Soft 1.19
/// stops a source dead): the gain goes to zero on one update step, OpenAL
/// interpolates it over its mixing quantum, and the source is stopped
/// ``rampFrames`` later (a positioned voice the audibility pass finds below
/// the threshold: one update period later on a loopback device, whose
/// render ramps a change over the one OpenAL call of the next period).
final class VoicePool: EngineComponent, @unchecked Sendable {
    // @unchecked: every field is read and written only under the engine lock.
    private weak var engine: AudioEngine?
    /// Sources no voice holds, each with what it still holds from the endless
    /// loop that gave it back at the threshold (nil: nothing, the next attach sets it all).
    private var free: [(source: ALSource, warmth: Warmth?)] = []
    /// Sources the pool owns.
    private(set) var sourceCount = 0
    /// Voices that may hold a source at once; the rest of the pool is the hand-off reserve.
    private(set) var capacity = 1
    private let limit: Int?
    /// Frames between setting a gain to zero and stopping the source: at least 5 ms.
    let rampFrames: Int64
    /// The voices the update step visits: every live voice but the dormant ones.
    private var voices: [Voice] = []
    /// The table of live voices, one row (slot) each, as flat arrays: what
    /// the audibility pass and ``moveBatch(_:to:)`` read for the dormant voices
    /// (virtual, out of earshot) without visiting them. A dormant row has its
    /// point and the squared distance within which it would be heard; any
    /// other row has `-1` there, which no squared distance is within.
    private var slotVoices: [Voice?] = []
    private var slotX: [Float] = [], slotY: [Float] = [], slotZ: [Float] = []
    private var slotReach: [Float] = []
    /// The level (volume times buses) a dormant row's reach was worked out for.
    private var slotLevel: [Float] = []
    private var freeSlots: [Int] = []
    /// Rises whenever a row changes hands (a voice starts or ends).
    private var slotGeneration: UInt64 = 0
    private(set) var dormantCount = 0
    /// Times a voice went dormant, and woke, since the engine opened.
    private(set) var sleeps = 0, wakes = 0
    /// Sources taken back warm (see ``Warmth``) since the engine opened.
    private(set) var warmStarts = 0
    /// Free sources that still hold a sound (see ``Warmth``).
    var warmFreeSources: Int { free.lazy.filter { $0.warmth != nil }.count }
    /// A voice went dormant while still in the list of voices (removed at the end of the update step).
    private var sleptOutsidePass = false
    /// The reaches need working out again (threshold or distance curve changed).
    private var reachesStale = false
    /// The last batch ``moveBatch(_:to:)`` was given, and its voices' rows.
    private var batchVoices: [Voice] = []
    private var batchSlots: [Int32] = []
    private var batchGeneration: UInt64 = .max
    /// Each row's place in the batch (-1: not in it), the batch's places of
    /// voices without a row, and its first row when its rows run in order (else -1).
    private var batchIndexOfSlot: [Int32] = []
    private var batchUnslotted: [Int32] = []
    private var batchBase = -1
    /// Rows moved within their reach since the last pass (maybe stale: checked when woken).
    private var pendingWake: [Int] = []
    /// Where the listener was at the last full look at the table: while it
    /// stays there, only rows that moved need a look, when they move.
    private var scannedListener = Audio3DPoint(x: .nan, y: .nan, z: .nan)
    /// Sources that ran dry between update steps and were restarted (effect underruns).
    private(set) var restarts = 0
    private var activeBySound: [ObjectIdentifier: Int] = [:]
    /// A voice finished since the list was last swept.
    private var anyFinished = false

    /// Something that changes which voices are audible changed (a position,
    /// a volume, the listener, a voice's start or end): the next update step
    /// runs the audibility pass.
    var audibilityDirty = false
    /// ``AudioEngine/audibilityThreshold`` in decibels, and as a gain.
    private(set) var thresholdDecibels: Float = -60
    private(set) var thresholdGain: Float = 0.001
    /// ``AudioEngine/audibilityMargin`` in decibels, and the gain below
    /// which an awake virtual voice goes to sleep (the threshold less the margin).
    private(set) var marginDecibels: Float = 3
    private(set) var sleepGain: Float = 0.001 * powf(10, -3 / 20)
    /// Reused by the audibility pass, so an update allocates nothing.
    private var waiting: [Voice] = []
    private var holding: [Voice] = []
    /// A voice holding a source keeps it against a virtual one unless that one
    /// is this much more audible (2 dB), so voices near the cut do not trade places every step.
    static let hysteresis: Float = 1.26

    /// The engine's listener, kept after the first look (an attachment lookup hashes its type).
    private var listenerRef: Listener?

    private func listener(of engine: AudioEngine) -> Listener {
        if let l = listenerRef { return l }
        let l = engine.listenerLocked
        listenerRef = l
        return l
    }

    /// Sources left for music streams and other owners outside the pool.
    static let streamReserve = 16

    /// A pool on `engine`'s device. Made on the engine's first use of
    /// effects (see `AudioEngine+Effects`), under the engine lock.
    init(engine: AudioEngine, limit: Int?) {
        self.engine = engine
        self.limit = limit
        rampFrames = Int64(max(engine.updateInterval * 2, engine.sampleRate / 200))
        // Only a closed device refuses; a pool on it has no sources, and the engine refuses every start.
        try? takeSources(from: engine.device)
    }

    /// The device the engine has now (it changes when the output is lost).
    private var device: ALDevice { engine!.device }

    /// Generates the pool's sources on `device`: what it grants, less the stream reserve.
    private func takeSources(from device: ALDevice) throws {
        let granted = max(4, device.maxSources - Self.streamReserve)
        let wanted = limit.map { min(granted, max(2, $0 + max(1, $0 / 16))) } ?? granted
        var sources: [ALSource] = []
        while sources.count < wanted, let name = try? device.generateSource() {
            sources.append(ALSource(name: name))
        }
        try device.withContext { for s in sources { s.reset() } }
        free = sources.map { ($0, nil) }
        let count = sources.count
        sourceCount = count
        capacity = max(1, limit.map { min($0, count - 1) } ?? (count - max(2, count / 16)))
    }

    // MARK: Queries

    /// Voices of `sound` that have not finished.
    func activeVoiceCount(of sound: SoundEffect) -> Int { activeBySound[ObjectIdentifier(sound)] ?? 0 }

    /// Logical voices alive (pending, playing, paused or virtual).
    var liveVoiceCount: Int {
        (sleptOutsidePass ? voices.lazy.filter { !$0.isDormant }.count : voices.count) + dormantCount
    }

    /// Voices fading out on their source before giving it up.
    private var stoppingCount = 0
    /// Voices that stole a source and wait for its fade-out to end.
    private var claimCount = 0

    /// Voices holding a source (not fading it out) or promised one: O(1).
    private var audibleCount: Int { sourceCount - free.count - stoppingCount + claimCount }

    /// Counts of voices by public state.
    var stateCounts: [Voice.State: Int] {
        var counts: [Voice.State: Int] = [:]
        for voice in voices where !voice.isDormant { counts[voice.stateLocked, default: 0] += 1 }
        if dormantCount > 0 { counts[.virtual, default: 0] += dormantCount }
        return counts
    }

    // MARK: Starting

    /// Starts `voice` now or at `time` (never throws).
    func startLocked(_ voice: Voice, at time: MediaTime?, bus: Bus) {
        guard let engine else { return }
        let now = engine.currentFrameLocked
        voice.bus = bus
        voice.requestFrame = now
        voice.lastUpdateFrame = now
        // A scheduled sound must be *heard* on its frame: start mixing it
        // earlier by the output's fixed latency (the limiter's lookahead).
        let target =
            time.map {
                max(now, $0.frames(atSampleRate: engine.sampleRate, rounding: .nearest) - engine.latencyFrames)
            } ?? now
        if !engine.isRunningLocked {
            finish(voice, completed: false)
            return
        }
        let sound = voice.sound
        let interval = sound.retriggerInterval
        if interval > .zero, let last = sound.lastStartFrame,
            target - last < interval.frames(atSampleRate: engine.sampleRate, rounding: .up)
        {
            refuse(voice, .retriggeredTooSoon)
            return
        }
        sound.lastStartFrame = target
        voices.append(voice)
        takeSlot(for: voice)
        voice.isCounted = true
        voice.pool = self
        audibilityDirty = true
        activeBySound[ObjectIdentifier(sound), default: 0] += 1
        voice.phase = .scheduled(target)
        if case .loaded(let resident) = sound.loadState, resident.buffer != nil {
            engine.effectCacheLocked.touch(sound)
            begin(voice, now: now)
        } else if case .loaded = sound.loadState {
            // A replacement device is getting the sound again: start once it has it.
            voice.phase = .waitingForLoad
            voice.startedAfterLoad = true
            voice.scheduledTarget = target
        } else {
            voice.phase = .waitingForLoad
            voice.startedAfterLoad = true
            voice.scheduledTarget = target
            engine.effectCacheLocked.loadLocked(sound)
        }
    }

    /// A sound finished loading (or failed): start or refuse the voices waiting for it.
    func soundDidLoad(_ sound: SoundEffect) {
        guard let engine else { return }
        audibilityDirty = true  // its virtual voices may take sources now
        let now = engine.currentFrameLocked
        for voice in voices where voice.sound === sound && voice.phase == .waitingForLoad {
            switch sound.loadState {
            case .loaded:
                voice.phase = .scheduled(max(now, voice.scheduledTarget))
                begin(voice, now: now)
            case .failed(let error):
                refuse(voice, .loadFailed(error))
            default:
                break
            }
        }
        removeFinished()
    }

    /// Gives `voice` a source if it is due, stealing if it must.
    private func begin(_ voice: Voice, now: Int64) {
        guard let engine, case .loaded(let resident) = voice.sound.loadState, resident.buffer != nil else { return }
        let target: Int64
        if case .scheduled(let t) = voice.phase { target = t } else { target = now }
        // Far-future starts wait; near ones start now behind a silent lead-in.
        // A device's clock moves in bursts of its mixer's periods, and the
        // update thread may wake late on a busy machine, so there a start
        // begins as soon as the update loop wakes for it (four update periods
        // ahead, see `nextDueFrame`): two were sometimes passed before the next look.
        let window = Int64(engine.updateInterval) * (device.isLoopback ? 2 : Self.startLeadPeriods)
        if target - now > window {
            voice.phase = .scheduled(target)
            return
        }
        if let limit = voice.sound.instanceLimit {
            let others = voices.filter { $0 !== voice && $0.sound === voice.sound && $0.holdsOrAwaitsSource }
                .sorted { $0.requestFrame < $1.requestFrame }
            for victim in others.prefix(max(0, others.count - limit + 1)) {
                engine.postLocked(.voiceStolen(voice: victim.id, sound: victim.sound.name, by: voice.id))
                release(victim, now: now, becomeVirtual: false)
            }
        }
        voice.audibility = audibility(of: voice, listener: listener(of: engine))
        if voice.isPlacedInWorld && voice.audibility < thresholdGain {
            // Placed out of earshot: it starts virtual, keeping time from its start.
            dropClaim(of: voice)
            voice.phase = .virtual
            voice.played = 0
            voice.lastUpdateFrame = target
            engine.postLocked(.voiceVirtualized(voice: voice.id, sound: voice.sound.name))
            // An endless loop goes dormant at once: a world spawning thousands
            // of far emitters does not walk them at the next update step.
            if canSleep(voice) {
                sleep(voice, listener: listener(of: engine))
                if voices.last === voice { voices.removeLast() } else { sleptOutsidePass = true }
            }
            return
        }
        if !voice.awaitingHandoff && audibleCount >= capacity {
            if let victim = stealCandidate(below: voice.priority, audibility: voice.audibility) {
                engine.postLocked(.voiceStolen(voice: victim.id, sound: victim.sound.name, by: voice.id))
                release(victim, now: now, becomeVirtual: victim.numberOfLoops < 0)
                voice.awaitingHandoff = true
                claimCount += 1
            } else if voice.numberOfLoops < 0 {
                voice.phase = .virtual
                voice.played = 0
                voice.lastUpdateFrame = target
                engine.postLocked(.voiceVirtualized(voice: voice.id, sound: voice.sound.name))
                return
            } else {
                refuse(voice, .allVoicesMoreImportant)
                return
            }
        }
        guard let (source, _) = takeFree(matching: nil) else {
            // Every spare source is still fading out a stolen voice.
            voice.phase = .waitingForSource
            voice.scheduledTarget = target
            return
        }
        dropClaim(of: voice)
        // The silent lead-in plays at the voice's rate too: a voice at rate 2
        // goes through twice the sound frames in the same output frames.
        // On a device, the clock is read again here rather than at the update's
        // start: the mixer may have moved on a period while this update ran.
        let outputToSound = Double(resident.sampleRate) / Double(engine.sampleRate) * Double(voice.rateValue)
        let leadInFrom = device.isLoopback ? now : engine.currentFrameLocked
        let leadIn = Int((Double(target - leadInFrom) * outputToSound).rounded())
        attach(voice, to: source, resident: resident, leadIn: leadIn, fadeIn: false)
        voice.startFrame = target
        engine.postLocked(
            .voiceStarted(
                voice: voice.id, sound: voice.sound.name,
                at: MediaTime(frames: target, sampleRate: engine.sampleRate),
                afterLoad: voice.startedAfterLoad))
    }

    /// Where a voice that has played `played` sound frames since its start is:
    /// the part it is in (intro, loop or tail; a sound without loop points
    /// has only loops), which loop, and the frame within that part. A time
    /// `t` is in the intro before the region's start, then in loop
    /// `(t - start) / length` at `(t - start) mod length`; a finite voice's
    /// time past its last loop is in the tail.
    static func place(played: Double, resident r: SoundEffect.Resident, loops: Int) -> (
        part: Part, loop: Int, offset: Double
    ) {
        let intro = Double(r.introFrames), cycle = Double(r.cycleFrames)
        if played < intro { return (.intro, 0, played) }
        let inLoops = played - intro
        let loop = Int(inLoops / cycle)
        if loops >= 0, loop > loops, r.loopPoints != nil {
            return (.tail, loops, inLoops - Double(loops + 1) * cycle)
        }
        return (.loop, loop, inLoops.truncatingRemainder(dividingBy: cycle))
    }

    enum Part { case intro, loop, tail }

    /// The frame of the sound a voice that has played `played` frames is at.
    static func soundFrame(played: Int, resident r: SoundEffect.Resident, loops: Int) -> Int {
        let (part, _, offset) = place(played: Double(played), resident: r, loops: loops)
        switch part {
        case .intro: return Int(offset)
        case .loop: return r.introFrames + Int(offset)
        case .tail: return min(r.frames - 1, r.introFrames + r.cycleFrames + Int(offset))
        }
    }

    /// Sets up `source` for `voice` and plays it, from where its played count
    /// says it is (a virtual voice coming back resumes in the intro, the loop
    /// region or the tail, at the fraction of a sample it was at).
    private func attach(
        _ voice: Voice, to source: ALSource, resident: SoundEffect.Resident,
        leadIn: Int, fadeIn: Bool, warmth: Warmth? = nil
    ) {
        guard let engine else { return }
        let (part, loop, startOffset) = Self.place(
            played: voice.played, resident: resident, loops: voice.numberOfLoops)
        let startPosition = Int(startOffset)
        voice.source = source
        voice.timeStands = false
        voice.playedBeforeAttach = Int(voice.played) - startPosition
        voice.lastPlayedFrame = engine.currentFrameLocked
        voice.unqueuedFrames = 0
        voice.leadInFrames = 0
        voice.leadInBuffer = nil
        voice.introInQueue = false
        voice.introToQueue = part == .intro && resident.loop?.intro != nil
        voice.tailToQueue = voice.numberOfLoops >= 0 && resident.loop?.tail != nil
        switch part {
        case .intro:
            voice.playsToQueue = voice.numberOfLoops < 0 ? Int.max : voice.numberOfLoops + 1
        case .loop:
            voice.playsToQueue = voice.numberOfLoops < 0 ? Int.max : max(1, voice.numberOfLoops + 1 - loop)
        case .tail:
            voice.playsToQueue = 0
        }
        voice.phase = .playing
        let gain = fadeIn ? 0 : voice.gain * (voice.bus?.effectiveGain(at: engine.currentFrameLocked) ?? 1)
        if let warmth, leadIn == 0, part == .loop, resumes(voice, resident: resident, from: warmth) {
            // The source still loops copies of this sound's buffer in place, as
            // many as this voice queues: an offset and a play, and only what
            // differs from the voice that gave it back.
            warmStarts += 1
            voice.queuedBuffers = warmth.copies
            voice.loopsInPlace = true
            voice.loopOffset = 0
            voice.nextQueueCheck = 0
            voice.playsToQueue = Int.max
            voice.introToQueue = false
            voice.tailToQueue = false
            if warmth.placement == Placement(voice, listener: listener(of: engine)), let p = voice.positionValue {
                source.move(x: p.x, y: p.y, z: p.z)
            } else {
                voice.applyPlacement(to: source)
            }
            if warmth.pitch != voice.rateValue { source.setPitch(voice.rateValue) }
            source.setGain(gain)
            voice.appliedGain = gain
            voice.stepMix(source: source, at: engine.currentFrameLocked, attaching: true, engine: engine)
            if startOffset > 0 { source.setSampleOffset(startOffset) }
            source.play()
            return
        }
        source.clearForReuse()  // placement, pitch and gain follow
        voice.queuedBuffers = 0
        voice.loopsInPlace = false
        voice.nextQueueCheck = 0
        voice.applyPlacement(to: source)
        source.setPitch(voice.rateValue)
        source.setGain(gain)
        voice.appliedGain = gain
        voice.stepMix(source: source, at: engine.currentFrameLocked, attaching: true, engine: engine)
        if leadIn > 0,
            let silence = try? PCMBuffer(
                format: resident.format, floats: [Float](repeating: 0, count: leadIn * resident.channels)),
            let buffer = try? device.generateBuffer(silence)
        {
            voice.leadInBuffer = buffer
            voice.leadInFrames = leadIn
            source.queue(buffer)
            voice.queuedBuffers = 1
        }
        refill(voice, resident: resident)
        if startOffset > 0 {
            // A virtual voice comes back mid-sound: skip into the first queued
            // buffer, to the fraction of a sample OpenAL's resampler keeps.
            source.setSampleOffset(startOffset)
        }
        source.play()
    }

    // MARK: Stopping

    /// Stops `voice` with a ramp.
    func stopLocked(_ voice: Voice) {
        guard let engine else { return }
        let now = engine.currentFrameLocked
        switch voice.phase {
        case .finished:
            return
        case .waitingForLoad, .scheduled, .waitingForSource, .virtual:
            finish(voice, completed: false)
        case .paused:
            freeSource(of: voice)
            finish(voice, completed: false)
        case .playing, .pausing:
            release(voice, now: now, becomeVirtual: false)
        case .stopping(let until, _):
            voice.phase = .stopping(until: until, thenVirtual: false)
        }
        removeFinished()
    }

    /// Ramps a voice's source to silence; the update step stops it later.
    private func release(_ voice: Voice, now: Int64, becomeVirtual: Bool, ramp: Int64? = nil) {
        guard let source = voice.source else {
            if becomeVirtual { voice.phase = .virtual } else { finish(voice, completed: false) }
            return
        }
        syncPlayed(voice)
        if voice.phase == .paused {
            freeSource(of: voice)
            if becomeVirtual { voice.phase = .virtual } else { finish(voice, completed: false) }
            return
        }
        source.setGain(0)
        voice.appliedGain = 0
        voice.phase = .stopping(until: now + (ramp ?? rampFrames), thenVirtual: becomeVirtual)
        // Its time goes on from here: the update steps advance it through the ramp.
        voice.lastUpdateFrame = now
        stoppingCount += 1
    }

    /// Gives back the source of a playing voice the audibility pass found
    /// below the threshold. OpenAL still renders it at the level the last
    /// pass found, which may be loud (a voice moved far, or muted, in one
    /// step), so its gain goes to zero first; on a loopback device the
    /// render's OpenAL call after that change ends at the next period
    /// boundary, and OpenAL ramps the change over it, so the source is silent
    /// and given back (keeping its sound and placement, see ``Warmth``) one
    /// period later, not after the ramp a device's own mixing needs. Its time
    /// goes on through the fade.
    private func giveBack(_ voice: Voice, now: Int64) {
        let ramp = device.isLoopback ? Int64(engine?.updateInterval ?? 0) : rampFrames
        release(voice, now: now, becomeVirtual: true, ramp: max(1, ramp))
    }

    private func dropClaim(of voice: Voice) {
        guard voice.awaitingHandoff else { return }
        voice.awaitingHandoff = false
        claimCount -= 1
    }

    private func freeSource(of voice: Voice, keepWarm: Bool = false) {
        guard let source = voice.source else { return }
        var warmth: Warmth?
        if keepWarm, let engine, voice.loopsInPlace, voice.leadInBuffer == nil, voice.numberOfLoops < 0,
            voice.isPlacedInWorld,
            !voice.introInQueue, case .loaded(let r) = voice.sound.loadState,
            let buffer = r.loop?.region ?? r.buffer, voice.queuedBuffers > 0
        {
            // Stopped, it keeps its queue (copies of one buffer, looping) and placement.
            source.stop()
            warmth = Warmth(
                buffer: buffer, copies: voice.queuedBuffers,
                placement: Placement(voice, listener: listener(of: engine)), pitch: voice.rateValue)
        } else {
            source.clearForReuse()  // a free source holds no buffer; the next attach sets the rest
        }
        voice.queuedBuffers = 0
        voice.loopsInPlace = false
        if let lead = voice.leadInBuffer { device.deleteBuffer(lead); voice.leadInBuffer = nil }
        voice.source = nil
        free.append((source, warmth))
    }

    /// What a free source still holds from the endless loop that gave it back
    /// at the threshold: copies of one buffer looping in place, and its placement and pitch.
    struct Warmth {
        let buffer: UInt32
        let copies: Int
        let placement: Placement
        let pitch: Float
    }

    /// What ``Voice/applyPlacement(to:)`` sets on a world-placed source, besides the point.
    struct Placement: Equatable {
        let distance: AudioDistanceAttenuationParameters
        let velocity: Audio3DPoint
        let radius: Float
        let direction: Audio3DPoint
        let cone: AudioCone
        init(_ voice: Voice, listener: Listener) {
            distance = voice.distanceValue ?? listener.distanceParameters
            velocity = voice.velocityValue
            radius = voice.radiusValue
            direction = voice.directionValue ?? .zero
            cone = voice.coneValue
        }
    }

    /// Whether `voice`, an endless loop placed in the world, can take back a
    /// source holding `warmth` with an offset and a play: the same buffer, as many copies.
    private func resumes(_ voice: Voice, resident r: SoundEffect.Resident, from warmth: Warmth) -> Bool {
        guard let engine, voice.numberOfLoops < 0, voice.isPlacedInWorld,
            (r.loop?.region ?? r.buffer) == warmth.buffer
        else { return false }
        return copiesToQueue(voice, resident: r, engine: engine) == warmth.copies
    }

    /// A free source, preferring (among the last few given back) one that
    /// still holds `buffer`; with its warmth (nil for `buffer` nil: a cold start).
    private func takeFree(matching buffer: UInt32?) -> (ALSource, Warmth?)? {
        guard !free.isEmpty else { return nil }
        if let buffer {
            var i = free.count - 1
            let last = max(0, free.count - 16)
            while i >= last {
                if free[i].warmth?.buffer == buffer {
                    free.swapAt(i, free.count - 1)
                    break
                }
                i -= 1
            }
        }
        let (source, warmth) = free.removeLast()
        return (source, buffer == nil ? nil : warmth)
    }

    /// Empties the free sources that still hold one of `buffers` (before
    /// they are deleted: OpenAL keeps a buffer that a source holds); every one for nil.
    func coolFreeSources(holding buffers: [UInt32]?) {
        guard free.contains(where: { $0.warmth != nil }) else { return }
        _ = try? device.withContext {
            for i in free.indices {
                guard let w = free[i].warmth, buffers?.contains(w.buffer) ?? true else { continue }
                free[i].source.clearForReuse()
                free[i].warmth = nil
            }
        }
    }

    private func refuse(_ voice: Voice, _ reason: PlaybackEvent.RefusalReason) {
        engine?.postLocked(.voiceRefused(voice: voice.id, sound: voice.sound.name, reason: reason))
        finish(voice, completed: false)
    }

    /// Ends a voice: its completion runs once, outside the lock.
    private func finish(_ voice: Voice, completed: Bool) {
        guard voice.phase != .finished else { return }
        let wasCounted = voice.isCounted
        voice.isCounted = false
        releaseSlot(of: voice)
        dropClaim(of: voice)
        if case .stopping = voice.phase, voice.source != nil { stoppingCount -= 1; freeSource(of: voice) }
        voice.phase = .finished
        anyFinished = true
        audibilityDirty = true
        if wasCounted {
            let key = ObjectIdentifier(voice.sound)
            activeBySound[key, default: 1] -= 1
            if activeBySound[key] == 0 { activeBySound[key] = nil }
        }
        engine?.postLocked(.voiceFinished(voice: voice.id, sound: voice.sound.name, completed: completed))
        if let completion = voice.completion {
            voice.completion = nil
            engine?.postLocked(callback: { completion(completed) })
        }
    }

    private func removeFinished() {
        guard anyFinished else { return }
        anyFinished = false
        voices.removeAll { $0.phase == .finished }
    }

    /// Among the voices holding a source, the lowest priority, then the least
    /// audible, then the oldest, if it is no more important than `priority`
    /// (and, at the same priority, no more audible than `audibility`).
    private func stealCandidate(below priority: Int, audibility: Float) -> Voice? {
        var best: Voice?
        for v in voices {
            switch v.phase {
            case .playing, .pausing, .paused: break
            default: continue
            }
            guard let b = best else { best = v; continue }
            if (v.priority, v.audibility, v.requestFrame) < (b.priority, b.audibility, b.requestFrame) { best = v }
        }
        guard let best, best.priority < priority || (best.priority == priority && best.audibility <= audibility)
        else { return nil }
        return best
    }

    // MARK: Position

    /// The voice's position in sound frames, within the current loop.
    func position(of voice: Voice, resident r: SoundEffect.Resident) -> Int {
        Self.soundFrame(played: playedFrames(of: voice), resident: r, loops: voice.numberOfLoops)
    }

    /// Sound frames the voice has played since it started, across loops
    /// (advanced by engine time while it is virtual).
    func playedFrames(of voice: Voice) -> Int {
        switch voice.phase {
        case .playing, .pausing, .stopping:
            guard let source = voice.source else { return Int(voice.played) }
            return consumedFrames(voice, source)
        case .paused:
            return Int(voice.played)
        case .virtual:
            return Int(voice.played + virtualTime(of: voice))
        default:
            return 0
        }
    }

    /// Sets ``AudioEngine/audibilityMargin``; false if `decibels` is NaN, negative or infinite.
    func setMargin(decibels: Float) -> Bool {
        guard decibels.isFinite, decibels >= 0 else { return false }
        marginDecibels = decibels
        sleepGain = thresholdGain * powf(10, -decibels / 20)
        audibilityDirty = true
        return true
    }

    /// Sets ``AudioEngine/audibilityThreshold``; false if `decibels` is NaN or above 0.
    func setThreshold(decibels: Float) -> Bool {
        guard !decibels.isNaN, decibels <= 0 else { return false }
        thresholdDecibels = decibels
        thresholdGain = decibels == -.infinity ? 0 : powf(10, decibels / 20)
        sleepGain = thresholdGain * powf(10, -marginDecibels / 20)
        audibilityDirty = true
        reachesStale = true
        return true
    }

    /// Sound frames the source has played since the voice started, across loops.
    private func consumedFrames(_ voice: Voice, _ source: ALSource) -> Int {
        consumedFrames(voice, offset: source.sampleOffset)
    }

    /// ``consumedFrames(_:_:)`` at a source offset already read.
    private func consumedFrames(_ voice: Voice, offset: Int) -> Int {
        // An endless loop may have come round since its last check.
        var wrapped = 0
        if voice.loopsInPlace, offset < voice.loopOffset, case .loaded(let r) = voice.sound.loadState {
            wrapped = voice.queuedBuffers * r.cycleFrames
        }
        return max(0, voice.playedBeforeAttach + voice.unqueuedFrames + wrapped + offset - voice.leadInFrames)
    }

    /// Reads the exact played count from OpenAL, while the voice still has its source.
    private func syncPlayed(_ voice: Voice) {
        guard let source = voice.source else { return }
        // With the fraction of a sample OpenAL's resampler is at, so a voice
        // that goes virtual comes back exactly in phase.
        let offset = max(0, source.preciseSampleOffset)
        let whole = offset.rounded(.down)
        voice.played = Double(consumedFrames(voice, offset: Int(whole))) + (offset - whole)
    }

    // MARK: Update step

    /// Keeps enough copies of the sound queued for finite and infinite loops.
    /// Returns whether every queued buffer had played, so the source may have
    /// stopped (only then is its state worth asking OpenAL for).
    @discardableResult
    private func refill(_ voice: Voice, resident r: SoundEffect.Resident) -> Bool {
        guard let source = voice.source, let engine else { return false }
        if voice.loopsInPlace {
            // OpenAL plays the queue round and round: nothing is processed or
            // queued again (and nothing allocated). A wrap shows as a smaller offset.
            let offset = source.sampleOffset
            if offset < voice.loopOffset { voice.unqueuedFrames += voice.queuedBuffers * r.cycleFrames }
            voice.loopOffset = offset
            return false
        }
        let processed = source.buffersProcessed
        let ranDry = processed >= voice.queuedBuffers
        if processed > 0 {
            source.unqueueProcessed(processed) { name in
                if name == voice.leadInBuffer {
                    voice.unqueuedFrames += voice.leadInFrames
                    device.deleteBuffer(name)
                    voice.leadInBuffer = nil
                } else if voice.introInQueue, name == r.loop?.intro {
                    voice.unqueuedFrames += r.introFrames
                    voice.introInQueue = false
                } else if let loop = r.loop, name == loop.tail {
                    voice.unqueuedFrames += r.tailFrames
                } else {
                    voice.unqueuedFrames += r.cycleFrames
                }
            }
            voice.queuedBuffers -= processed
        }
        let copies = copiesToQueue(voice, resident: r, engine: engine)
        var queued = voice.queuedBuffers - (voice.leadInBuffer == nil ? 0 : 1)
        // A sound with loop points queues its intro, then its region, then its tail.
        while queued < copies, r.buffer != nil {
            if voice.introToQueue, let intro = r.loop?.intro {
                source.queue(intro)
                voice.introToQueue = false
                voice.introInQueue = true
            } else if voice.playsToQueue > 0, let buffer = r.loop?.region ?? r.buffer {
                source.queue(buffer)
                if voice.playsToQueue != Int.max { voice.playsToQueue -= 1 }
            } else if voice.tailToQueue, let tail = r.loop?.tail {
                source.queue(tail)
                voice.tailToQueue = false
            } else {
                break
            }
            queued += 1
            voice.queuedBuffers += 1
        }
        // An endless loop, once past its lead-in and intro, stops being fed
        // copy by copy: OpenAL loops its queue (copies of one buffer, so any
        // buffer may come first), and checks come twice per round to count the wraps.
        if voice.numberOfLoops < 0, voice.leadInBuffer == nil, !voice.introInQueue, !voice.introToQueue,
            voice.queuedBuffers > 0
        {
            source.setLooping(true)
            voice.loopsInPlace = true
            voice.loopOffset = source.sampleOffset
        }
        return ranDry
    }

    /// Copies of its sound (or loop region) a voice keeps queued: enough for
    /// four update periods at its rate, and at least two.
    private func copiesToQueue(_ voice: Voice, resident r: SoundEffect.Resident, engine: AudioEngine) -> Int {
        let ahead =
            Double(engine.updateInterval * 4) * Double(voice.rateValue) * Double(r.sampleRate)
            / Double(engine.sampleRate)
        return min(64, max(2, Int((ahead / Double(r.shortestSegment)).rounded(.up)) + 1))
    }

    /// Sound frames a voice moves on per output frame as OpenAL Soft steps a
    /// source: the sound's rate over the output's times the pitch, in Float,
    /// kept in 12-bit fixed point (so 44.1 kHz on a 48 kHz output plays at
    /// 3763/4096, not 0.91875). A virtual voice's time follows it, so it comes
    /// back where OpenAL would have been even after minutes.
    static func step(_ voice: Voice, _ r: SoundEffect.Resident, outputRate: Int) -> Double {
        let pitch = Float(r.sampleRate) / Float(outputRate) * voice.rateValue
        return Double(max(1, (pitch * 4096).rounded(.toNearestOrEven))) / 4096
    }

    /// Advances the engine-time estimate of what a playing voice has played
    /// (used when a device vanishes without saying where its sources were).
    private func estimatePlayed(_ voice: Voice, to frame: Int64, resident r: SoundEffect.Resident, outputRate: Int) {
        let audibleFrom = max(voice.lastPlayedFrame, voice.startFrame)
        if frame > audibleFrom {
            voice.played +=
                Double(frame - audibleFrom) * Double(voice.rateValue) * Double(r.sampleRate) / Double(outputRate)
        }
        voice.lastPlayedFrame = frame
    }

    /// Output frames the voice's queue is sure to last beyond the buffer
    /// playing now, less four update periods of margin: until then the queue
    /// needs no look (no OpenAL query). Zero once only one buffer is left.
    private func safeQueueSpan(_ voice: Voice, resident r: SoundEffect.Resident, updateInterval: Int, outputRate: Int)
        -> Int64
    {
        if voice.loopsInPlace {
            let round =
                Double(voice.queuedBuffers * r.cycleFrames) * Double(outputRate)
                / (Double(r.sampleRate) * Double(voice.rateValue))
            return max(Int64(updateInterval), Int64(round / 2))
        }
        let copies = voice.queuedBuffers - (voice.leadInBuffer == nil ? 0 : 1)
        guard copies > 1 else { return 0 }
        let outputFrames =
            Double((copies - 1) * r.shortestSegment) * Double(outputRate)
            / (Double(r.sampleRate) * Double(voice.rateValue))
        return max(0, Int64(outputFrames) - Int64(4 * updateInterval))
    }

    /// The earliest engine frame at which a voice needs the update step: a
    /// scheduled start's lead-in (four periods early, so it starts behind a
    /// silent lead-in), a queue's next look, a finite voice's estimated end
    /// (looked at from halfway there, then every period near it, so it is
    /// reaped on time); every period while a voice ramps, pauses, stops,
    /// waits for a load or a source, or is unsettled. Endless loops playing
    /// in place and paused voices ask for nothing.
    /// How many update periods ahead of its target a scheduled start wakes
    /// the update loop, and, on a device, begins behind its silent lead-in.
    static let startLeadPeriods: Int64 = 4

    func nextDueFrame(after frame: Int64) -> Int64? {
        guard let engine else { return nil }
        let interval = Int64(engine.updateInterval), outputRate = engine.sampleRate
        return earliest(after: frame) { voice in
            switch voice.phase {
            case .finished:
                return .none
            case .paused:
                return voice.userPaused || (voice.bus?.stepPaused ?? false) ? .none : .now
            case .virtual:
                return voice.numberOfLoops >= 0 && !voice.userPaused && !(voice.bus?.stepPaused ?? false) ? .now : .none
            case .scheduled(let target):
                return .at(target - Self.startLeadPeriods * interval)
            case .playing:
                guard voice.isSettled else { return .now }
                if voice.nextQueueCheck > frame { return .at(voice.nextQueueCheck) }
                guard let end = estimatedEnd(of: voice, after: frame, outputRate: outputRate) else { return .now }
                // From halfway there, then every period over its last 20 ms or so.
                return .at(frame + max(0, (end - frame - 4 * interval) / 2))
            case .waitingForLoad, .waitingForSource, .pausing, .stopping:
                return .now
            }
        }
    }

    /// Exact, for an offline render's skipped periods: an update step has
    /// nothing to do while every awake voice is an endless loop that plays
    /// settled until its next queue check, fades out until its ramp's end,
    /// sits paused, or is virtual and unpaused (its time goes on by the
    /// frames between steps). Anything else steps every period.
    func nextStepFrame(after frame: Int64) -> Int64? {
        earliest(after: frame) { voice in
            switch voice.phase {
            case .finished:
                return .none
            case .virtual:
                // Paused or not: its time is counted from the frames between steps.
                guard voice.numberOfLoops < 0, case .loaded = voice.sound.loadState else { return .now }
                return .none
            case .paused:
                return voice.userPaused || (voice.bus?.stepPaused ?? false) ? .none : .now
            case .playing:
                guard voice.isSettled, voice.numberOfLoops < 0, !voice.userPaused, !(voice.bus?.stepPaused ?? false)
                else { return .now }
                return .at(voice.nextQueueCheck - voice.queueCheckSlack)
            case .stopping(let until, _):
                return .at(until)
            case .waitingForLoad, .waitingForSource, .pausing, .scheduled:
                return .now
            }
        }
    }

    /// What one awake voice asks of the update steps.
    private enum StepNeed {
        /// Nothing until the game changes something.
        case none
        /// The next step.
        case now
        /// A step at this engine frame.
        case at(Int64)
    }

    /// The earliest frame at which the awake voices, asked by `need`, want a
    /// step (`frame` for the next one; nil for none), after a step at `frame`.
    private func earliest(after frame: Int64, _ need: (Voice) -> StepNeed) -> Int64? {
        if audibilityDirty { return frame }
        var due: Int64?
        for voice in voices where !voice.isDormant {
            switch need(voice) {
            case .none:
                continue
            case .now:
                return frame
            case .at(let next):
                if next <= frame { return frame }
                due = min(due ?? next, next)
            }
        }
        return due
    }

    /// The engine frame a finite playing voice should end on, from what it
    /// has played by engine time (nil for an endless loop or a sound not loaded).
    private func estimatedEnd(of voice: Voice, after frame: Int64, outputRate: Int) -> Int64? {
        guard voice.numberOfLoops >= 0, case .loaded(let r) = voice.sound.loadState, voice.rateValue > 0 else {
            return nil
        }
        let total = Double(r.frames) + Double(voice.numberOfLoops) * Double(r.cycleFrames)
        let perOutputFrame = Double(voice.rateValue) * Double(r.sampleRate) / Double(outputRate)
        let remaining = max(0, total - voice.played) / perOutputFrame
        guard remaining.isFinite, remaining < 1e12 else { return nil }
        return max(frame, voice.startFrame, voice.lastPlayedFrame) + Int64(remaining)
    }

    func update(at frame: Int64) throws {
        guard let engine else { return }
        // The engine computed bus gains and pauses once for this step, before any component.
        let busesChanged = engine.busesChangedThisStep
        let updateInterval = engine.updateInterval, outputRate = engine.sampleRate
        for voice in voices {
            // The common case costs nothing: a playing voice whose queue lasts
            // past this step, with no change to its gain, pause or buses.
            if voice.isSettled && !busesChanged && frame < voice.nextQueueCheck - voice.queueCheckSlack { continue }
            if voice.isDormant { continue }
            let elapsed = frame - voice.lastUpdateFrame
            voice.lastUpdateFrame = frame
            if case .virtual = voice.phase {
                // Most voices of a large world are virtual: their time goes on
                // by the pitch OpenAL would play them at, and nothing else. A
                // render steps only the periods with work, so the frames since
                // the last step count up to the period before a pause this step
                // finds, and from the period before the step that finds it playing.
                guard case .loaded(let r) = voice.sound.loadState else { continue }
                let interval = Int64(updateInterval)
                if voice.userPaused || (voice.bus?.stepPaused ?? false) {
                    if !voice.timeStands {
                        voice.played += Double(max(0, elapsed - interval)) * Self.step(voice, r, outputRate: outputRate)
                        voice.timeStands = true
                    }
                    continue
                }
                let counted = voice.timeStands ? min(elapsed, interval) : elapsed
                voice.timeStands = false
                voice.played += Double(counted) * Self.step(voice, r, outputRate: outputRate)
                // Its whole sound once, plus each further round of its loop region.
                if voice.numberOfLoops >= 0,
                    voice.played >= Double(r.frames) + Double(voice.numberOfLoops) * Double(r.cycleFrames)
                {
                    finish(voice, completed: true)
                }
                continue
            }
            let busGain = voice.bus?.stepGain ?? 1
            let wantsPause = voice.userPaused || (voice.bus?.stepPaused ?? false)
            switch voice.phase {
            case .finished, .waitingForLoad:
                break
            case .scheduled, .waitingForSource:
                begin(voice, now: frame)
            case .playing:
                guard let source = voice.source, case .loaded(let r) = voice.sound.loadState else { break }
                if wantsPause {
                    source.setGain(0)
                    voice.appliedGain = 0
                    voice.phase = .pausing(until: frame + rampFrames)
                    break
                }
                estimatePlayed(voice, to: frame, resident: r, outputRate: outputRate)
                if frame >= voice.nextQueueCheck - voice.queueCheckSlack {
                    if refill(voice, resident: r), source.state == .stopped {
                        if voice.playsToQueue > 0 || voice.introToQueue || voice.tailToQueue {
                            source.play()  // ran dry between updates: restart
                            restarts += 1
                        } else {
                            freeSource(of: voice)
                            finish(voice, completed: true)
                            continue
                        }
                    }
                    let span = safeQueueSpan(
                        voice, resident: r, updateInterval: updateInterval, outputRate: outputRate)
                    voice.nextQueueCheck = frame + span
                    voice.queueCheckSlack = voice.loopsInPlace && !engine.device.isLoopback ? span / 2 : 0
                }
                applyGain(voice, busGain: busGain)
                voice.isSettled = !voice.stepMix(source: source, at: frame, attaching: false, engine: engine)
            case .pausing(let until):
                guard let source = voice.source else { break }
                if !wantsPause {
                    voice.phase = .playing
                    applyGain(voice, busGain: busGain)
                } else if frame >= until {
                    syncPlayed(voice)
                    source.pause()
                    voice.phase = .paused
                }
            case .paused:
                guard !wantsPause, let source = voice.source else { break }
                source.play()
                voice.phase = .playing
                voice.lastPlayedFrame = frame
                applyGain(voice, busGain: busGain)
            case .stopping(let until, let thenVirtual):
                if thenVirtual, case .loaded(let r) = voice.sound.loadState {
                    // Its time goes on through the fade-out, as it will while virtual.
                    voice.played +=
                        Double(elapsed) * Self.step(voice, r, outputRate: outputRate)
                }
                guard frame >= until else { break }
                stoppingCount -= 1
                // The source freed lets a waiting voice start only when none was free.
                let sourcesWereOut = free.isEmpty
                freeSource(of: voice, keepWarm: thenVirtual)
                if thenVirtual {
                    voice.phase = .virtual
                    engine.postLocked(.voiceVirtualized(voice: voice.id, sound: voice.sound.name))
                    // A voice faded out of earshot, still the margin below the
                    // threshold where it is now, sleeps here: no audibility pass for it.
                    let listener = listener(of: engine)
                    let a = audibility(of: voice, listener: listener)
                    voice.audibility = a
                    if !sourcesWereOut, voice.isPlacedInWorld, a < sleepGain, canSleep(voice) {
                        sleep(voice, listener: listener)
                        sleptOutsidePass = true
                    } else if sourcesWereOut || a >= thresholdGain || !voice.isPlacedInWorld {
                        // A source is wanted, or it is back in earshot: the pass looks again.
                        // (Otherwise it stays virtual, awake, and the next pass sees it.)
                        audibilityDirty = true
                    }
                } else {
                    audibilityDirty = true
                    finish(voice, completed: false)
                }
            case .virtual:
                break  // handled above
            }
        }
        removeSleepers()
        if audibilityDirty || busesChanged { updateAudibility(at: frame, busesChanged: busesChanged) }
        removeFinished()
    }

    // MARK: Audibility

    /// What the listener hears `voice` at, 0...1: its volume times its bus
    /// chain's gain, and for a positioned voice the distance attenuation and
    /// the cone weight that OpenAL applies.
    private func audibility(of voice: Voice, listener: Listener) -> Float {
        let level = voice.gain * (voice.bus?.stepGain ?? 1)
        guard let p = voice.positionValue, voice.renderingValue != .stereoPassThrough else { return level }
        let tx = listener.position.x - p.x, ty = listener.position.y - p.y, tz = listener.position.z - p.z
        let squared = tx * tx + ty * ty + tz * tz
        let d = voice.distanceValue ?? listener.distanceParameters
        var gain = level
        if d.rolloffFactor > 0 && squared > d.referenceDistance * d.referenceDistance {
            gain *= d.gain(atDistance: squared.squareRoot())
        }
        if let facing = voice.directionValue, voice.coneValue.innerAngle < 360, squared > 0 {
            gain *= Self.coneWeight(facing: facing, toListener: (tx, ty, tz), cone: voice.coneValue)
        }
        return gain
    }

    /// OpenAL's cone weight: full inside the inner angle, the outer gain
    /// beyond the outer one, linear in the angle between them.
    static func coneWeight(facing f: Audio3DPoint, toListener t: (Float, Float, Float), cone: AudioCone) -> Float {
        let lengths = ((f.x * f.x + f.y * f.y + f.z * f.z) * (t.0 * t.0 + t.1 * t.1 + t.2 * t.2)).squareRoot()
        guard lengths > 0 else { return 1 }
        let cosine = min(max((f.x * t.0 + f.y * t.1 + f.z * t.2) / lengths, -1), 1)
        let angle = acos(cosine) * 360 / Float.pi  // the full angle this direction would need
        if angle <= cone.innerAngle { return 1 }
        if angle >= cone.outerAngle { return cone.outerGain }
        let along = (angle - cone.innerAngle) / (cone.outerAngle - cone.innerAngle)
        return 1 + (cone.outerGain - 1) * along
    }

    /// The audibility pass: computes every live voice's audibility, sends
    /// positioned voices below the threshold virtual, and gives sources to the
    /// most audible virtual voices (most important first), taking them from
    /// less audible voices when the audible set is larger than the sources.
    /// Runs on the update steps after something it depends on changed; sorts
    /// only when there are more audible voices than sources.
    private func updateAudibility(at frame: Int64, busesChanged: Bool) {
        guard let engine else { return }
        // The lists hold voices only while a pass runs: a voice that ends
        // later must not live on here, keeping its sound and the sound's buffers.
        defer {
            waiting.removeAll(keepingCapacity: true)
            holding.removeAll(keepingCapacity: true)
        }
        audibilityDirty = false
        let listener = listener(of: engine)
        if dormantCount == 0 {
            // An empty table is looked at from anywhere: the moves and sleeps
            // from here on are checked against this listener.
            scannedListener = listener.position
            reachesStale = false
        } else {
            if busesChanged || reachesStale {
                refreshDormant(listener: listener, busesChanged: busesChanged, at: frame)
                scannedListener = Audio3DPoint(x: .nan, y: .nan, z: .nan)
            }
            if scannedListener != listener.position {
                pendingWake.removeAll(keepingCapacity: true)
                scanDormant(listener: listener.position)
                scannedListener = listener.position
            }
        }
        if !pendingWake.isEmpty {
            for s in pendingWake { if let voice = slotVoices[s], voice.isDormant { wake(voice) } }
            pendingWake.removeAll(keepingCapacity: true)
            audibilityDirty = false  // this pass looks at the woken voices
        }
        waiting.removeAll(keepingCapacity: true)
        var holdingCount = 0
        var slept = false
        for voice in voices where !voice.isDormant {
            switch voice.phase {
            case .playing:
                let a = audibility(of: voice, listener: listener)
                voice.audibility = a
                if a < thresholdGain && voice.isPlacedInWorld {
                    giveBack(voice, now: frame)
                } else {
                    holdingCount += 1
                }
            case .virtual:
                let a = audibility(of: voice, listener: listener)
                voice.audibility = a
                guard !voice.userPaused, !(voice.bus?.stepPaused ?? false) else { continue }
                if voice.isPlacedInWorld && a < thresholdGain {
                    // It sleeps only once the margin below the threshold (it
                    // wakes at the threshold): a voice near the line stays awake.
                    if a < sleepGain, canSleep(voice) {
                        sleep(voice, listener: listener)
                        slept = true
                    }
                    continue
                }
                // A sound a replacement device does not have yet keeps its voices virtual.
                guard case .loaded(let r) = voice.sound.loadState, r.buffer != nil else { continue }
                waiting.append(voice)
            case .pausing, .paused, .scheduled, .waitingForSource:
                voice.audibility = audibility(of: voice, listener: listener)
            default:
                break
            }
        }
        if slept { voices.removeAll { $0.isDormant } }
        guard !waiting.isEmpty else { return }
        if waiting.count > max(0, capacity - audibleCount) {
            waiting.sort {
                ($0.priority, $0.audibility, -$0.requestFrame) > ($1.priority, $1.audibility, -$1.requestFrame)
            }
        }
        let next = realize(from: 0, at: frame)
        guard next < waiting.count, holdingCount > 0 else { return }
        // More audible voices than sources: the least audible voices holding
        // one (lowest priority first) go virtual for the most audible waiting ones.
        holding.removeAll(keepingCapacity: true)
        for voice in voices where voice.phase == .playing { holding.append(voice) }
        holding.sort { ($0.priority, $0.audibility, $0.requestFrame) < ($1.priority, $1.audibility, $1.requestFrame) }
        var victims = 0
        for candidate in waiting[next...] {
            guard victims < holding.count else { break }
            let victim = holding[victims]
            let wins =
                candidate.priority > victim.priority
                || (candidate.priority == victim.priority && candidate.audibility > victim.audibility * Self.hysteresis)
            guard wins else { break }
            engine.postLocked(.voiceStolen(voice: victim.id, sound: victim.sound.name, by: candidate.id))
            release(victim, now: frame, becomeVirtual: true)
            victims += 1
        }
        guard victims > 0 else { return }
        // The hand-off reserve lets the winners start now, while the others fade out.
        _ = realize(from: next, at: frame)
    }

    /// Gives free sources, within the capacity, to `waiting[start...]` in
    /// order; returns the index of the first voice left waiting.
    private func realize(from start: Int, at frame: Int64) -> Int {
        var index = start
        while index < waiting.count, audibleCount < capacity, !free.isEmpty {
            let voice = waiting[index]
            index += 1
            guard case .loaded(let r) = voice.sound.loadState,
                let (source, warmth) = takeFree(matching: r.loop?.region ?? r.buffer)
            else { continue }
            attach(voice, to: source, resident: r, leadIn: 0, fadeIn: true, warmth: warmth)
            applyGain(voice, at: frame)
            engine?.postLocked(.voiceRealized(voice: voice.id, sound: voice.sound.name))
        }
        // Voices left waiting get a source when a fade-out ends or a voice
        // finishes: both mark the pass to run again.
        return index
    }

    private func applyGain(_ voice: Voice, at frame: Int64) {
        applyGain(voice, busGain: voice.bus?.effectiveGain(at: frame) ?? 1)
    }

    private func applyGain(_ voice: Voice, busGain: Float) {
        guard let source = voice.source else { return }
        let gain = voice.gain * busGain
        if gain != voice.appliedGain {
            source.setGain(gain)
            voice.appliedGain = gain
        }
    }

    // MARK: Dormant voices

    /// Gives `voice` a row of the table.
    private func takeSlot(for voice: Voice) {
        guard voice.slot < 0 else { return }
        let s: Int
        if let free = freeSlots.popLast() {
            s = free
            slotVoices[s] = voice
        } else {
            s = slotVoices.count
            slotVoices.append(voice)
            slotX.append(0)
            slotY.append(0)
            slotZ.append(0)
            slotReach.append(-1)
            slotLevel.append(0)
        }
        voice.slot = s
        slotGeneration &+= 1
    }

    /// Gives back the row of a voice that ended (waking it first if it slept).
    private func releaseSlot(of voice: Voice) {
        let s = voice.slot
        guard s >= 0 else { return }
        if voice.isDormant {
            voice.storedPosition = dormantPoint(s)
            voice.isDormant = false
            dormantCount -= 1
        }
        slotReach[s] = -1
        slotVoices[s] = nil
        freeSlots.append(s)
        voice.slot = -1
        slotGeneration &+= 1
        // The batch is stale from here (its generation): let go of its
        // voices, which would otherwise keep ended voices and their sounds alive.
        if !batchVoices.isEmpty { batchVoices = [] }
    }

    /// A dormant voice's point.
    func dormantPoint(_ slot: Int) -> Audio3DPoint { Audio3DPoint(x: slotX[slot], y: slotY[slot], z: slotZ[slot]) }

    /// Moves a dormant voice (the next audibility pass looks at it).
    func setDormantPoint(_ slot: Int, _ p: Audio3DPoint) {
        slotX[slot] = p.x
        slotY[slot] = p.y
        slotZ[slot] = p.z
        let l = scannedListener
        let tx = l.x - p.x, ty = l.y - p.y, tz = l.z - p.z
        if tx * tx + ty * ty + tz * tz <= slotReach[slot] { pendingWake.append(slot) }
    }

    /// Sound frames a virtual voice has played, not yet counted in its
    /// `played`, up to now: since it went dormant, or since its last update
    /// step (a render steps only the periods with work). Its time stands
    /// while it or its bus is paused.
    private func virtualTime(of voice: Voice) -> Double {
        guard let engine, case .loaded(let r) = voice.sound.loadState else { return 0 }
        let since = voice.isDormant ? voice.dormantSince : voice.lastUpdateFrame
        let stands = voice.timeStands || voice.userPaused || (voice.bus?.stepPaused ?? false)
        guard voice.isDormant || !stands else { return 0 }
        return Double(max(0, engine.currentFrameLocked - since)) * Self.step(voice, r, outputRate: engine.sampleRate)
    }

    /// Whether a virtual voice, found out of earshot, can sleep in the table:
    /// an endless loop, placed in the world, with nothing that needs the
    /// update step (no pause, glide or ramp) and no cone (its audibility is
    /// then a matter of distance alone).
    private func canSleep(_ voice: Voice) -> Bool {
        guard voice.slot >= 0, !voice.isDormant, voice.numberOfLoops < 0, voice.isPlacedInWorld,
            !voice.userPaused, !(voice.bus?.stepPaused ?? false), voice.glide == nil,
            voice.volumeRamp == nil, voice.rateRamp == nil, case .loaded(let r) = voice.sound.loadState,
            r.buffer != nil
        else { return false }
        return voice.directionValue == nil || voice.coneValue.innerAngle >= 360
    }

    /// Puts a virtual voice to sleep in its row (its time is up to date to its last update step).
    private func sleep(_ voice: Voice, listener: Listener) {
        let s = voice.slot
        let p = voice.storedPosition ?? .zero
        slotX[s] = p.x
        slotY[s] = p.y
        slotZ[s] = p.z
        let level = voice.gain * (voice.bus?.stepGain ?? 1)
        slotLevel[s] = level
        slotReach[s] = reach(of: voice, level: level, listener: listener)
        voice.dormantSince = voice.lastUpdateFrame
        voice.isDormant = true
        dormantCount += 1
        sleeps += 1
    }

    /// Wakes a dormant voice: back in the list of voices, virtual, its time
    /// brought up to the engine's current frame at the rate it slept at (so a
    /// new rate, set after this, counts from this frame on).
    func wake(_ voice: Voice) {
        guard let now = engine?.currentFrameLocked else { return }
        wake(voice, countingTo: now, resumingAt: now)
    }

    private func wake(_ voice: Voice, countingTo end: Int64, resumingAt resume: Int64) {
        guard voice.isDormant, let engine else { return }
        removeSleepers()  // so it is in the list once
        let s = voice.slot
        if case .loaded(let r) = voice.sound.loadState {
            voice.played += Double(end - voice.dormantSince) * Self.step(voice, r, outputRate: engine.sampleRate)
        }
        voice.storedPosition = dormantPoint(s)
        voice.isDormant = false
        slotReach[s] = -1
        dormantCount -= 1
        wakes += 1
        voice.lastUpdateFrame = resume
        voices.append(voice)
        audibilityDirty = true
    }

    /// Takes voices that went dormant outside a pass out of the list of voices.
    private func removeSleepers() {
        guard sleptOutsidePass else { return }
        sleptOutsidePass = false
        voices.removeAll { $0.isDormant }
    }

    private func wakeAll() {
        guard dormantCount > 0 else { return }
        for s in slotVoices.indices { if let voice = slotVoices[s], voice.isDormant { wake(voice) } }
    }

    /// The squared distance from the listener within which `voice` at
    /// `level` is heard at or above the threshold, by exactly the test
    /// ``audibility(of:listener:)`` makes (-1: nowhere; infinity: everywhere).
    /// Every distance curve falls with distance, so the test holds up to one
    /// squared distance and fails beyond it: found by halving the range of
    /// Float bit patterns (positive Floats order as their bits do).
    private func reach(of voice: Voice, level: Float, listener: Listener) -> Float {
        let d = voice.distanceValue ?? listener.distanceParameters
        let threshold = thresholdGain
        let reference = d.referenceDistance * d.referenceDistance
        func heard(_ squared: Float) -> Bool {
            var gain = level
            if d.rolloffFactor > 0 && squared > reference { gain *= d.gain(atDistance: squared.squareRoot()) }
            return !(gain < threshold)
        }
        guard heard(0) else { return -1 }
        if heard(.infinity) { return .infinity }
        var low: UInt32 = 0, high = Float.infinity.bitPattern  // heard(low), not heard(high)
        // The curve's own inverse lands within a few Floats of the answer:
        // walk from there while that is short, else halve from the whole range.
        let estimate = Self.distance(atGain: threshold / level, d)
        if estimate.isFinite, estimate >= 0 {
            var bits = min((estimate * estimate).bitPattern, high - 1), steps = 0
            while steps < 8, bits > 0, !heard(Float(bitPattern: bits)) { bits -= 1; steps += 1 }
            if heard(Float(bitPattern: bits)) {
                low = bits
                while steps < 16, heard(Float(bitPattern: low + 1)) { low += 1; steps += 1 }
                if !heard(Float(bitPattern: low + 1)) { return Float(bitPattern: low) }
            } else {
                high = bits
            }
        }
        while high - low > 1 {
            let mid = low + (high - low) / 2
            if heard(Float(bitPattern: mid)) { low = mid } else { high = mid }
        }
        return Float(bitPattern: low)
    }

    /// The distance at which curve `d` gives `gain` (below 1), by its formula (NaN if none).
    static func distance(atGain gain: Float, _ d: AudioDistanceAttenuationParameters) -> Float {
        let r = d.referenceDistance, f = d.rolloffFactor
        guard gain > 0, gain < 1, f > 0, r > 0 else { return .nan }
        switch d.distanceAttenuationModel {
        case .inverse: return r + (r / gain - r) / f
        case .linear: return r + (1 - gain) * (d.maximumDistance - r) / f
        case .exponential: return r * pow(gain, -1 / f)
        }
    }

    /// After a change of threshold, distance curve or bus gains: works out
    /// the dormant voices' reaches again, and wakes those whose bus paused
    /// (their time stops at the step before, as a virtual voice's does).
    private func refreshDormant(listener: Listener, busesChanged: Bool, at frame: Int64) {
        let all = reachesStale
        reachesStale = false
        for s in slotVoices.indices {
            guard let voice = slotVoices[s], voice.isDormant else { continue }
            if busesChanged, voice.bus?.stepPaused ?? false {
                // Its time stops at the period before, and stands from here.
                wake(voice, countingTo: frame - Int64(engine?.updateInterval ?? 0), resumingAt: frame)
                voice.timeStands = true
                continue
            }
            let level = voice.gain * (voice.bus?.stepGain ?? 1)
            guard all || level != slotLevel[s] else { continue }
            slotLevel[s] = level
            slotReach[s] = reach(of: voice, level: level, listener: listener)
        }
    }

    /// Finds every dormant voice within its reach of the listener at `l`
    /// (woken by the pass): one look at the table's flat arrays, a squared
    /// distance and a compare per row.
    private func scanDormant(listener l: Audio3DPoint) {
        var found = pendingWake
        pendingWake = []
        defer { pendingWake = found }
        slotX.withUnsafeBufferPointer { xs in
            slotY.withUnsafeBufferPointer { ys in
                slotZ.withUnsafeBufferPointer { zs in
                    slotReach.withUnsafeBufferPointer { reach in
                        for s in 0..<reach.count {
                            let tx = l.x - xs[s], ty = l.y - ys[s], tz = l.z - zs[s]
                            if tx * tx + ty * ty + tz * tz <= reach[s] { found.append(s) }
                        }
                    }
                }
            }
        }
    }

    /// Moves `voices[i]` to `positions[i]` (finite points; the caller checked
    /// the voices are this engine's), with the lock held and the context
    /// current. The pool keeps the array it was given last (the same storage
    /// means the same voices) with each voice's row of the table, so a move
    /// of that batch never visits a dormant voice: one pass stores every
    /// point into its row (a dormant voice's place; an awake voice's row is
    /// not read) and compares its squared distance from the listener with
    /// the row's squared reach (-1 for an awake voice), noting the rows that
    /// came within reach for the next audibility pass to wake; then only the
    /// awake voices (the update step's list) and the voices without a row
    /// are moved one by one. Returns whether the pass has anything to look
    /// at (a dormant voice came within reach, or an awake one moved).
    func moveBatch(_ voices: [Voice], to positions: [Audio3DPoint]) -> Bool {
        if !isCachedBatch(voices) { remember(voices) }
        let near = storeBatch(positions)
        var moved = false
        guard !batchIndexOfSlot.isEmpty else {
            // A small batch: its own voices, the dormant ones skipped.
            for i in 0..<voices.count where voices[i].slot < 0 || !voices[i].isDormant {
                let p = positions[i]
                guard p.isFinite else { continue }
                moved = voices[i].moveLocked(to: p) || moved
            }
            return moved || near
        }
        positions.withUnsafeBufferPointer { positions in
            batchIndexOfSlot.withUnsafeBufferPointer { index in
                for voice in self.voices where !voice.isDormant {
                    let s = voice.slot
                    guard s >= 0, s < index.count else { continue }
                    let i = Int(index[s])
                    guard i >= 0, positions[i].isFinite else { continue }
                    moved = voice.moveLocked(to: positions[i]) || moved
                }
            }
            for i in batchUnslotted {
                let p = positions[Int(i)]
                guard p.isFinite else { continue }
                moved = voices[Int(i)].moveLocked(to: p) || moved
            }
        }
        return moved || near
    }

    /// Keeps `voices` as the batch, with each one's row and, for a batch of
    /// more than 256 voices, each row's place in the batch (its last, when a
    /// voice comes twice) and the voices without one; a smaller batch is
    /// moved by visiting its own voices (no table-sized index for a few voices).
    private func remember(_ voices: [Voice]) {
        batchVoices = voices
        batchSlots = voices.map { Int32(truncatingIfNeeded: $0.slot) }
        batchGeneration = slotGeneration
        batchUnslotted = []
        batchIndexOfSlot = []
        batchBase = -1
        guard voices.count > 256 else { return }
        batchIndexOfSlot = Array(repeating: -1, count: slotVoices.count)
        var contiguous = !voices.isEmpty
        let base = batchSlots.first ?? 0
        for (i, s) in batchSlots.enumerated() {
            if s >= 0 { batchIndexOfSlot[Int(s)] = Int32(i) } else { batchUnslotted.append(Int32(i)) }
            if s != base &+ Int32(truncatingIfNeeded: i) { contiguous = false }
        }
        batchBase = contiguous ? Int(base) : -1
    }

    /// Stores the batch's finite points into their rows; returns whether a
    /// dormant row came within its reach of the listener (noted in ``pendingWake``).
    private func storeBatch(_ positions: [Audio3DPoint]) -> Bool {
        let slots = batchSlots, reach = slotReach
        let l = scannedListener
        var xs = slotX, ys = slotY, zs = slotZ, near = pendingWake
        let before = near.count
        // Taken out of the pool while written (no copy: each has one owner then).
        slotX = []
        slotY = []
        slotZ = []
        pendingWake = []
        defer {
            slotX = xs
            slotY = ys
            slotZ = zs
            pendingWake = near
        }
        let base = batchBase
        positions.withUnsafeBufferPointer { positions in
            slots.withUnsafeBufferPointer { slots in
                reach.withUnsafeBufferPointer { reach in
                    xs.withUnsafeMutableBufferPointer { xs in
                        ys.withUnsafeMutableBufferPointer { ys in
                            zs.withUnsafeMutableBufferPointer { zs in
                                if base >= 0 {
                                    Self.storeRows(
                                        positions, base: base, xs, ys, zs, reach: reach, listener: l, near: &near)
                                } else {
                                    for i in 0..<positions.count {
                                        let s = Int(slots[i])
                                        let p = positions[i]
                                        guard s >= 0, p.isFinite else { continue }
                                        xs[s] = p.x
                                        ys[s] = p.y
                                        zs[s] = p.z
                                        // NaN (no scan yet) compares false: the pass scans then.
                                        let tx = l.x - p.x, ty = l.y - p.y, tz = l.z - p.z
                                        if tx * tx + ty * ty + tz * tz <= reach[s] { near.append(s) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return near.count > before
    }

    /// The batch whose rows are `base..<base + positions.count`, in order (a
    /// game's emitters started together): four rows at a time in SIMD lanes,
    /// blocks of 64 rows stored and compared with no branch, and only a block
    /// where a row came within reach looked at again for which.
    private static func storeRows(
        _ positions: UnsafeBufferPointer<Audio3DPoint>, base: Int,
        _ xs: UnsafeMutableBufferPointer<Float>, _ ys: UnsafeMutableBufferPointer<Float>,
        _ zs: UnsafeMutableBufferPointer<Float>, reach: UnsafeBufferPointer<Float>,
        listener l: Audio3DPoint, near: inout [Int]
    ) {
        let count = positions.count
        guard count > 0, let p = positions.baseAddress, let x = xs.baseAddress, let y = ys.baseAddress,
            let z = zs.baseAddress, let r = reach.baseAddress
        else { return }
        precondition(MemoryLayout<Audio3DPoint>.stride == 12 && base + count <= reach.count)
        let floats = UnsafeRawPointer(p)
        let lx = SIMD4<Float>(repeating: l.x), ly = SIMD4<Float>(repeating: l.y), lz = SIMD4<Float>(repeating: l.z)
        @inline(__always) func load(_ q: UnsafeMutablePointer<Float>, _ s: Int) -> SIMD4<Float> {
            UnsafeRawPointer(q + s).loadUnaligned(as: SIMD4<Float>.self)
        }
        @inline(__always) func store(_ v: SIMD4<Float>, _ q: UnsafeMutablePointer<Float>, _ s: Int) {
            UnsafeMutableRawPointer(q + s).storeBytes(of: v, as: SIMD4<Float>.self)
        }
        let whole = count & ~3
        var start = 0
        while start < whole {
            let end = min(whole, start + 64)
            var hits = SIMD4<Int32>(repeating: 0)
            var i = start
            while i < end {
                // Four points, x y z x | y z x y | z x y z, into a lane each.
                let a = floats.loadUnaligned(fromByteOffset: i * 12, as: SIMD4<Float>.self)
                let b = floats.loadUnaligned(fromByteOffset: i * 12 + 16, as: SIMD4<Float>.self)
                let c = floats.loadUnaligned(fromByteOffset: i * 12 + 32, as: SIMD4<Float>.self)
                var px = SIMD4<Float>(a[0], a[3], b[2], c[1])
                var py = SIMD4<Float>(a[1], b[0], b[3], c[2])
                var pz = SIMD4<Float>(a[2], b[1], c[0], c[3])
                // A point with a NaN or infinite coordinate leaves its row as it was.
                // (x - x is 0 for a finite x, NaN for an infinite or NaN one.)
                let bad = .!(((px - px) + (py - py) + (pz - pz)) .== .zero)
                let s = base &+ i
                if any(bad) {
                    // Rare: only then are the rows read (a store alone does not wait for them).
                    px.replace(with: load(x, s), where: bad)
                    py.replace(with: load(y, s), where: bad)
                    pz.replace(with: load(z, s), where: bad)
                }
                store(px, x, s)
                store(py, y, s)
                store(pz, z, s)
                let tx = lx - px, ty = ly - py, tz = lz - pz
                let squared = tx * tx + ty * ty + tz * tz
                let within = squared .<= UnsafeRawPointer(r + s).loadUnaligned(as: SIMD4<Float>.self)
                hits.replace(with: 1, where: within)
                i += 4
            }
            if hits != .zero { findNear(start..<end) }
            start = end
        }
        // The last rows, one by one.
        for i in whole..<count {
            let s = base &+ i
            let q = p[i]
            if q.isFinite {
                x[s] = q.x
                y[s] = q.y
                z[s] = q.z
            }
        }
        if whole < count { findNear(whole..<count) }

        func findNear(_ range: Range<Int>) {
            for i in range {
                let s = base &+ i
                let tx = l.x - x[s], ty = l.y - y[s], tz = l.z - z[s]
                if tx * tx + ty * ty + tz * tz <= r[s] { near.append(s) }
            }
        }
    }

    /// Whether `voices` is the array ``moveBatch(_:to:)`` was given last, and no row changed hands since.
    func isCachedBatch(_ voices: [Voice]) -> Bool {
        guard batchGeneration == slotGeneration, voices.count == batchVoices.count else { return false }
        let a = voices.withUnsafeBufferPointer { $0.baseAddress }
        let b = batchVoices.withUnsafeBufferPointer { $0.baseAddress }
        return a != nil && a == b
    }

    /// Makes every voice look at its mix at the next step (the environment's slot changed).
    func unsettleAll() { for voice in voices { voice.isSettled = false } }

    // MARK: Device loss

    /// Moves every voice off the lost device's sources, keeping its place:
    /// voices that were audible or paused go virtual with their played count
    /// (read from OpenAL while `readPositions`, else as engine time advanced it).
    func deviceWillBeReplaced(readPositions: Bool) {
        let frame = engine?.currentFrameLocked ?? 0
        wakeAll()
        for voice in voices {
            if readPositions {
                syncPlayed(voice)
            } else if voice.phase == .playing, case .loaded(let r) = voice.sound.loadState, let engine {
                estimatePlayed(voice, to: frame, resident: r, outputRate: engine.sampleRate)
            }
            voice.lastUpdateFrame = frame
            voice.isSettled = false
            switch voice.phase {
            case .playing, .pausing, .paused:
                voice.phase = .virtual
            case .stopping(_, let thenVirtual):
                if thenVirtual { voice.phase = .virtual } else { voice.source = nil; finish(voice, completed: false) }
            case .waitingForSource:
                voice.phase = .scheduled(voice.scheduledTarget)
            default:
                break
            }
            voice.source = nil
            voice.leadInBuffer = nil
            voice.appliedGain = -1
            if voice.awaitingHandoff { voice.awaitingHandoff = false }
        }
        claimCount = 0
        stoppingCount = 0
        free = []
        audibilityDirty = true
        removeFinished()
    }

    /// Takes sources on the new device (virtual voices come back at the next
    /// update), then uploads the cached sounds again.
    func deviceWasReplaced() throws {
        guard let engine else { return }
        try takeSources(from: engine.device)
        audibilityDirty = true
        engine.existingAttachmentLocked(SoundCache.self)?.reloadAll()
    }

    /// Applies every sourced voice's position (or pan) again, after the
    /// distance parameters changed. With the lock held.
    func reapplyPlacementsLocked() {
        guard let engine else { return }
        reachesStale = true
        _ = try? engine.device.withContext {
            for voice in voices { if let source = voice.source { voice.applyPlacement(to: source) } }
        }
    }

    /// Stops every voice at once, without ramps (engine shutdown).
    func engineWillShutDown() {
        wakeAll()
        batchVoices = []
        batchSlots = []
        batchIndexOfSlot = []
        batchUnslotted = []
        for voice in voices {
            finish(voice, completed: false)
            freeSource(of: voice)
        }
        voices.removeAll()
        coolFreeSources(holding: nil)
    }
}

extension Voice {
    /// Positioned and rendered in the world (not passed through): what can go virtual by audibility.
    var isPlacedInWorld: Bool { positionValue != nil && renderingValue != .stereoPassThrough }

    /// Whether the voice holds a source or is about to get one.
    var holdsOrAwaitsSource: Bool {
        switch phase {
        case .playing, .pausing, .paused, .scheduled, .waitingForSource, .waitingForLoad: true
        case .stopping, .virtual, .finished: false
        }
    }
}
