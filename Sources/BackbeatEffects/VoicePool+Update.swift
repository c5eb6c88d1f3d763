import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension VoicePool {
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
            guard let source = voice.record.source else { return Int(voice.record.played) }
            return consumedFrames(voice, source)
        case .paused:
            return Int(voice.record.played)
        case .virtual:
            return Int(voice.record.played + virtualTime(of: voice))
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
    func consumedFrames(_ voice: Voice, _ source: ALSource) -> Int {
        consumedFrames(voice, offset: source.sampleOffset)
    }

    /// ``consumedFrames(_:_:)`` at a source offset already read.
    func consumedFrames(_ voice: Voice, offset: Int) -> Int {
        // An endless loop may have come round since its last check.
        var wrapped = 0
        if voice.record.loopsInPlace, offset < voice.record.loopOffset, case .loaded(let r) = voice.playedLoadState {
            wrapped = voice.record.queuedBuffers * r.cycleFrames
        }
        return max(
            0,
            voice.record.playedBeforeAttach + voice.record.unqueuedFrames + wrapped + offset
                - voice.record.leadInFrames)
    }

    /// Reads the exact played count from OpenAL, while the voice still has its source.
    func syncPlayed(_ voice: Voice) {
        guard let source = voice.record.source else { return }
        // With the fraction of a sample OpenAL's resampler is at, so a voice
        // that goes virtual comes back exactly in phase.
        let offset = max(0, source.preciseSampleOffset)
        let whole = offset.rounded(.down)
        voice.record.played = Double(consumedFrames(voice, offset: Int(whole))) + (offset - whole)
    }

    // MARK: Update step

    /// Keeps enough copies of the sound queued for finite and infinite loops.
    /// Returns whether every queued buffer had played, so the source may have
    /// stopped (only then is its state worth asking OpenAL for).
    @discardableResult
    func refill(_ voice: Voice, resident r: SoundEffect.Resident) -> Bool {
        guard let source = voice.record.source, let engine else { return false }
        if voice.record.loopsInPlace {
            // OpenAL plays the queue round and round: nothing is processed or
            // queued again (and nothing allocated). A wrap shows as a smaller offset.
            let offset = source.sampleOffset
            if offset < voice.record.loopOffset {
                voice.record.unqueuedFrames += voice.record.queuedBuffers * r.cycleFrames
            }
            voice.record.loopOffset = offset
            return false
        }
        let processed = source.buffersProcessed
        let ranDry = processed >= voice.record.queuedBuffers
        if processed > 0 {
            source.unqueueProcessed(processed) { name in
                if name == voice.record.leadInBuffer {
                    voice.record.unqueuedFrames += voice.record.leadInFrames
                    device.deleteBuffer(name)
                    voice.record.leadInBuffer = nil
                } else if voice.record.introInQueue, name == r.loop?.intro {
                    voice.record.unqueuedFrames += r.introFrames
                    voice.record.introInQueue = false
                } else if let loop = r.loop, name == loop.tail {
                    voice.record.unqueuedFrames += r.tailFrames
                } else {
                    voice.record.unqueuedFrames += r.cycleFrames
                }
            }
            voice.record.queuedBuffers -= processed
        }
        let copies = copiesToQueue(voice, resident: r, engine: engine)
        var queued = voice.record.queuedBuffers - (voice.record.leadInBuffer == nil ? 0 : 1)
        // A sound with loop points queues its intro, then its region, then its tail.
        while queued < copies, r.buffer != nil {
            if voice.record.introToQueue, let intro = r.loop?.intro {
                source.queue(intro)
                voice.record.introToQueue = false
                voice.record.introInQueue = true
            } else if voice.record.playsToQueue > 0, let buffer = r.loop?.region ?? r.buffer {
                source.queue(buffer)
                if voice.record.playsToQueue != Int.max { voice.record.playsToQueue -= 1 }
            } else if voice.record.tailToQueue, let tail = r.loop?.tail {
                source.queue(tail)
                voice.record.tailToQueue = false
            } else {
                break
            }
            queued += 1
            voice.record.queuedBuffers += 1
        }
        // An endless loop, once past its lead-in and intro, stops being fed
        // copy by copy: OpenAL loops its queue (copies of one buffer, so any
        // buffer may come first), and checks come twice per round to count the wraps.
        if voice.numberOfLoops < 0, voice.record.leadInBuffer == nil, !voice.record.introInQueue,
            !voice.record.introToQueue, voice.record.queuedBuffers > 0
        {
            source.setLooping(true)
            voice.record.loopsInPlace = true
            voice.record.loopOffset = source.sampleOffset
        }
        return ranDry
    }

    /// Copies of its sound (or loop region) a voice keeps queued: enough for
    /// four update periods at its rate, and at least two.
    func copiesToQueue(_ voice: Voice, resident r: SoundEffect.Resident, engine: AudioEngine) -> Int {
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
    func estimatePlayed(_ voice: Voice, to frame: Int64, resident r: SoundEffect.Resident, outputRate: Int) {
        voice.record.played = playedEstimate(of: voice, at: frame, resident: r, outputRate: outputRate)
        voice.record.lastPlayedFrame = frame
    }

    /// What a playing voice has played by `frame`, by engine time: its
    /// played count carried on from the last update that advanced it (or
    /// from its start, after a lead-in) at OpenAL's step for its rate
    /// (``step(_:_:outputRate:)``). Changes nothing.
    func playedEstimate(of voice: Voice, at frame: Int64, resident r: SoundEffect.Resident, outputRate: Int) -> Double {
        let audibleFrom = max(voice.record.lastPlayedFrame, voice.record.startFrame)
        guard frame > audibleFrom else { return voice.record.played }
        return voice.record.played + Double(frame - audibleFrom) * Self.step(voice, r, outputRate: outputRate)
    }

    /// Output frames the voice's queue is sure to last beyond the buffer
    /// playing now, less four update periods of margin: until then the queue
    /// needs no look (no OpenAL query). Zero once only one buffer is left.
    func safeQueueSpan(_ voice: Voice, resident r: SoundEffect.Resident, updateInterval: Int, outputRate: Int)
        -> Int64
    {
        if voice.record.loopsInPlace {
            let round =
                Double(voice.record.queuedBuffers * r.cycleFrames) * Double(outputRate)
                / (Double(r.sampleRate) * Double(voice.rateValue))
            return max(Int64(updateInterval), Int64(round / 2))
        }
        let copies = voice.record.queuedBuffers - (voice.record.leadInBuffer == nil ? 0 : 1)
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
        let interval = Int64(engine.updateInterval)
        let outputRate = engine.sampleRate
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
                // A gentle glide's next step (see Voice.coarseGlidePeriods).
                let glide = voice.mix.glideDue ?? .max
                if voice.record.nextQueueCheck > frame { return .at(min(voice.record.nextQueueCheck, glide)) }
                guard let end = estimatedEnd(of: voice, after: frame, outputRate: outputRate) else { return .now }
                // From halfway there, then every period over its last 20 ms or so.
                return .at(min(glide, frame + max(0, (end - frame - 4 * interval) / 2)))
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
                guard voice.numberOfLoops < 0, case .loaded = voice.playedLoadState else { return .now }
                return .none
            case .paused:
                return voice.userPaused || (voice.bus?.stepPaused ?? false) ? .none : .now
            case .playing:
                guard voice.isSettled, voice.numberOfLoops < 0, !voice.userPaused, !(voice.bus?.stepPaused ?? false)
                else { return .now }
                return .at(min(voice.record.nextQueueCheck - voice.record.queueCheckSlack, voice.mix.glideDue ?? .max))
            case .stopping(let until, _):
                return .at(until)
            case .waitingForLoad, .waitingForSource, .pausing, .scheduled:
                return .now
            }
        }
    }

    /// What one awake voice asks of the update steps.
    fileprivate enum StepNeed {
        /// Nothing until the game changes something.
        case none
        /// The next step.
        case now
        /// A step at this engine frame.
        case at(Int64)
    }

    /// The earliest frame at which the awake voices, asked by `need`, want a
    /// step (`frame` for the next one; nil for none), after a step at `frame`.
    fileprivate func earliest(after frame: Int64, _ need: (Voice) -> StepNeed) -> Int64? {
        if audibilityDirty { return frame }
        var due: Int64?
        for voice in voices where !voice.record.isDormant {
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
    func estimatedEnd(of voice: Voice, after frame: Int64, outputRate: Int) -> Int64? {
        guard voice.numberOfLoops >= 0, case .loaded(let r) = voice.playedLoadState, voice.rateValue > 0 else {
            return nil
        }
        let total = Double(r.frames) + Double(voice.numberOfLoops) * Double(r.cycleFrames)
        let perOutputFrame = Double(voice.rateValue) * Double(r.sampleRate) / Double(outputRate)
        let remaining = max(0, total - voice.record.played) / perOutputFrame
        guard remaining.isFinite, remaining < 1e12 else { return nil }
        return max(frame, voice.record.startFrame, voice.record.lastPlayedFrame) + Int64(remaining)
    }

    func update(at frame: Int64) throws {
        guard let engine else { return }
        // The engine computed bus gains and pauses once for this step, before any component.
        let busesChanged = engine.busesChangedThisStep
        let updateInterval = engine.updateInterval
        let outputRate = engine.sampleRate
        for voice in voices {
            // The common case costs nothing: a playing voice whose queue lasts
            // past this step, with no change to its gain, pause or buses.
            if voice.isSettled && !busesChanged && frame < voice.record.nextQueueCheck - voice.record.queueCheckSlack
                && frame < voice.mix.glideDue ?? .max
            {
                continue
            }
            if voice.record.isDormant { continue }
            let elapsed = frame - voice.record.lastUpdateFrame
            voice.record.lastUpdateFrame = frame
            if case .virtual = voice.phase {
                // Most voices of a large world are virtual: their time goes on
                // by the pitch OpenAL would play them at, and nothing else. A
                // render steps only the periods with work, so the frames since
                // the last step count up to the period before a pause this step
                // finds, and from the period before the step that finds it playing.
                guard case .loaded(let r) = voice.playedLoadState else { continue }
                let interval = Int64(updateInterval)
                if voice.userPaused || (voice.bus?.stepPaused ?? false) {
                    if !voice.record.timeStands {
                        voice.record.played +=
                            Double(max(0, elapsed - interval)) * Self.step(voice, r, outputRate: outputRate)
                        voice.record.timeStands = true
                    }
                    continue
                }
                let counted = voice.record.timeStands ? min(elapsed, interval) : elapsed
                voice.record.timeStands = false
                voice.record.played += Double(counted) * Self.step(voice, r, outputRate: outputRate)
                // Its whole sound once, plus each further round of its loop region.
                if voice.numberOfLoops >= 0,
                    voice.record.played >= Double(r.frames) + Double(voice.numberOfLoops) * Double(r.cycleFrames)
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
                guard let source = voice.record.source, case .loaded(let r) = voice.playedLoadState else { break }
                if wantsPause {
                    source.setGain(0)
                    voice.record.appliedGain = 0
                    voice.phase = .pausing(until: frame + rampFrames)
                    break
                }
                estimatePlayed(voice, to: frame, resident: r, outputRate: outputRate)
                if frame >= voice.record.nextQueueCheck - voice.record.queueCheckSlack {
                    if refill(voice, resident: r), source.state == .stopped {
                        if voice.record.playsToQueue > 0 || voice.record.introToQueue || voice.record.tailToQueue {
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
                    voice.record.nextQueueCheck = frame + span
                    voice.record.queueCheckSlack = voice.record.loopsInPlace && !engine.device.isLoopback ? span / 2 : 0
                }
                applyGain(voice, busGain: busGain)
                voice.isSettled = !voice.stepMix(source: source, at: frame, attaching: false, engine: engine)
            case .pausing(let until):
                guard let source = voice.record.source else { break }
                if !wantsPause {
                    voice.phase = .playing
                    applyGain(voice, busGain: busGain)
                } else if frame >= until {
                    syncPlayed(voice)
                    source.pause()
                    voice.phase = .paused
                }
            case .paused:
                guard !wantsPause, let source = voice.record.source else { break }
                source.play()
                voice.phase = .playing
                voice.record.lastPlayedFrame = frame
                applyGain(voice, busGain: busGain)
            case .stopping(let until, let thenVirtual):
                if thenVirtual, case .loaded(let r) = voice.playedLoadState {
                    // Its time goes on through the fade-out, as it will while virtual.
                    voice.record.played +=
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
                    postTelemetry(engine, .voiceVirtual, voice)
                    // A voice faded out of earshot, still the margin below the
                    // threshold where it is now, sleeps here: no audibility pass for it.
                    let listener = engine.listenerLocked
                    let a = audibility(of: voice, listener: listener)
                    voice.record.audibility = a
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
}
