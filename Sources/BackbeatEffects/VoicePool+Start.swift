import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL

extension VoicePool {
    // MARK: Starting

    /// Starts `voice` now or at `time` (never throws).
    func startLocked(_ voice: Voice, at time: MediaTime?, bus: Bus) {
        guard let engine else { return }
        #if DEBUG
        engine.preconditionLocked()
        #endif
        let now = engine.currentFrameLocked
        voice.bus = bus
        voice.record.requestFrame = now
        voice.record.lastUpdateFrame = now
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
        voice.record.isCounted = true
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
            voice.record.startedAfterLoad = true
            voice.record.scheduledTarget = target
        } else {
            voice.phase = .waitingForLoad
            voice.record.startedAfterLoad = true
            voice.record.scheduledTarget = target
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
                voice.phase = .scheduled(max(now, voice.record.scheduledTarget))
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
    func begin(_ voice: Voice, now: Int64) {
        guard let engine, case .loaded(let resident) = voice.playedLoadState, resident.buffer != nil else { return }
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
                .sorted { $0.record.requestFrame < $1.record.requestFrame }
            for victim in others.prefix(max(0, others.count - limit + 1)) {
                engine.postLocked(.voiceStolen(voice: victim.id, sound: victim.sound.name, by: voice.id))
                postTelemetry(engine, .voiceStolen, victim, "instance limit: by voice \(voice.id.raw)")
                release(victim, now: now, becomeVirtual: false)
            }
        }
        voice.record.audibility = audibility(of: voice, listener: engine.listenerLocked)
        if voice.isPlacedInWorld && voice.record.audibility < thresholdGain {
            // Placed out of earshot: it starts virtual, keeping time from its start.
            dropClaim(of: voice)
            voice.phase = .virtual
            voice.record.played = 0
            voice.record.lastUpdateFrame = target
            engine.postLocked(.voiceVirtualized(voice: voice.id, sound: voice.sound.name))
            postTelemetry(engine, .voiceVirtual, voice, "outOfEarshot")
            // An endless loop goes dormant at once: a world spawning thousands
            // of far emitters does not walk them at the next update step.
            if canSleep(voice) {
                sleep(voice, listener: engine.listenerLocked)
                if voices.last === voice { voices.removeLast() } else { sleptOutsidePass = true }
            }
            return
        }
        if !voice.record.awaitingHandoff && audibleCount >= capacity {
            if let victim = stealCandidate(below: voice.priority, audibility: voice.record.audibility) {
                engine.postLocked(.voiceStolen(voice: victim.id, sound: victim.sound.name, by: voice.id))
                postTelemetry(engine, .voiceStolen, victim, "voice limit: by voice \(voice.id.raw)")
                release(victim, now: now, becomeVirtual: victim.numberOfLoops < 0)
                voice.record.awaitingHandoff = true
                claimCount += 1
            } else if voice.numberOfLoops < 0 {
                voice.phase = .virtual
                voice.record.played = 0
                voice.record.lastUpdateFrame = target
                engine.postLocked(.voiceVirtualized(voice: voice.id, sound: voice.sound.name))
                postTelemetry(engine, .voiceVirtual, voice, "voiceLimit")
                return
            } else {
                refuse(voice, .allVoicesMoreImportant)
                return
            }
        }
        guard let (source, _) = takeFree(matching: nil) else {
            // Every spare source is still fading out a stolen voice.
            voice.phase = .waitingForSource
            voice.record.scheduledTarget = target
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
        voice.record.startFrame = target
        engine.postLocked(
            .voiceStarted(
                voice: voice.id, sound: voice.sound.name,
                at: MediaTime(frames: target, sampleRate: engine.sampleRate),
                afterLoad: voice.record.startedAfterLoad))
        postTelemetry(engine, .voiceStarted, voice, voice.record.startedAfterLoad ? "after its load" : nil)
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
        let intro = Double(r.introFrames)
        let cycle = Double(r.cycleFrames)
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
    func attach(
        _ voice: Voice, to source: ALSource, resident: SoundEffect.Resident,
        leadIn: Int, fadeIn: Bool, warmth: Warmth? = nil
    ) {
        guard let engine else { return }
        let (part, loop, startOffset) = Self.place(
            played: voice.record.played, resident: resident, loops: voice.numberOfLoops)
        let startPosition = Int(startOffset)
        voice.record.source = source
        voice.record.timeStands = false
        voice.record.playedBeforeAttach = Int(voice.record.played) - startPosition
        voice.record.lastPlayedFrame = engine.currentFrameLocked
        voice.record.unqueuedFrames = 0
        voice.record.leadInFrames = 0
        voice.record.leadInBuffer = nil
        voice.record.introInQueue = false
        voice.record.introToQueue = part == .intro && resident.loop?.intro != nil
        voice.record.tailToQueue = voice.numberOfLoops >= 0 && resident.loop?.tail != nil
        switch part {
        case .intro:
            voice.record.playsToQueue = voice.numberOfLoops < 0 ? Int.max : voice.numberOfLoops + 1
        case .loop:
            voice.record.playsToQueue = voice.numberOfLoops < 0 ? Int.max : max(1, voice.numberOfLoops + 1 - loop)
        case .tail:
            voice.record.playsToQueue = 0
        }
        voice.phase = .playing
        let gain = fadeIn ? 0 : voice.gain * (voice.bus?.effectiveGain(at: engine.currentFrameLocked) ?? 1)
        if let warmth, leadIn == 0, part == .loop, resumes(voice, resident: resident, from: warmth) {
            // The source still loops copies of this sound's buffer in place, as
            // many as this voice queues: an offset and a play, and only what
            // differs from the voice that gave it back.
            warmStarts += 1
            voice.record.queuedBuffers = warmth.copies
            voice.record.loopsInPlace = true
            voice.record.loopOffset = 0
            voice.record.nextQueueCheck = 0
            voice.record.playsToQueue = Int.max
            voice.record.introToQueue = false
            voice.record.tailToQueue = false
            if warmth.placement == Placement(voice, listener: engine.listenerLocked), let point = voice.positionValue {
                let p = voice.heardPointLocked(point)
                source.move(x: p.x, y: p.y, z: p.z)
            } else {
                voice.applyPlacement(to: source)
            }
            if warmth.pitch != voice.rateValue { source.setPitch(voice.rateValue) }
            source.setGain(gain)
            voice.record.appliedGain = gain
            voice.stepMix(source: source, at: engine.currentFrameLocked, attaching: true, engine: engine)
            if startOffset > 0 { source.setSampleOffset(startOffset) }
            source.play()
            return
        }
        source.clearForReuse()  // placement, pitch and gain follow
        voice.record.queuedBuffers = 0
        voice.record.loopsInPlace = false
        voice.record.nextQueueCheck = 0
        voice.applyPlacement(to: source)
        source.setPitch(voice.rateValue)
        source.setGain(gain)
        voice.record.appliedGain = gain
        voice.stepMix(source: source, at: engine.currentFrameLocked, attaching: true, engine: engine)
        if leadIn > 0,
            let silence = try? PCMBuffer(
                format: resident.format, floats: [Float](repeating: 0, count: leadIn * resident.channels)),
            let buffer = try? device.generateBuffer(silence)
        {
            voice.record.leadInBuffer = buffer
            voice.record.leadInFrames = leadIn
            source.queue(buffer)
            voice.record.queuedBuffers = 1
        }
        refill(voice, resident: resident)
        if startOffset > 0 {
            // A virtual voice comes back mid-sound: skip into the first queued
            // buffer, to the fraction of a sample OpenAL's resampler keeps.
            source.setSampleOffset(startOffset)
        }
        source.play()
    }
}
