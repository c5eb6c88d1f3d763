import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL

extension VoicePool {
    // MARK: Stopping

    /// Stops `voice` with a ramp.
    func stopLocked(_ voice: Voice) {
        guard let engine else { return }
        #if DEBUG
        engine.preconditionLocked()
        #endif
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
    func release(_ voice: Voice, now: Int64, becomeVirtual: Bool, ramp: Int64? = nil) {
        guard let source = voice.record.source else {
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
        voice.record.appliedGain = 0
        voice.phase = .stopping(until: now + (ramp ?? rampFrames), thenVirtual: becomeVirtual)
        // Its time goes on from here: the update steps advance it through the ramp.
        voice.record.lastUpdateFrame = now
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
    func giveBack(_ voice: Voice, now: Int64) {
        let ramp = device.isLoopback ? Int64(engine?.updateInterval ?? 0) : rampFrames
        release(voice, now: now, becomeVirtual: true, ramp: max(1, ramp))
    }

    func dropClaim(of voice: Voice) {
        guard voice.record.awaitingHandoff else { return }
        voice.record.awaitingHandoff = false
        claimCount -= 1
    }

    func refuse(_ voice: Voice, _ reason: PlaybackEvent.RefusalReason) {
        if let engine {
            engine.postLocked(.voiceRefused(voice: voice.id, sound: voice.sound.name, reason: reason))
            postTelemetry(engine, .voiceRefused, voice, Self.describe(reason))
        }
        finish(voice, completed: false)
    }

    /// Ends a voice: its completion runs once, outside the lock.
    func finish(_ voice: Voice, completed: Bool) {
        guard voice.phase != .finished else { return }
        let wasCounted = voice.record.isCounted
        voice.record.isCounted = false
        releaseSlot(of: voice)
        dropClaim(of: voice)
        if case .stopping = voice.phase, voice.record.source != nil {
            stoppingCount -= 1
            freeSource(of: voice)
        }
        voice.phase = .finished
        anyFinished = true
        audibilityDirty = true
        if wasCounted {
            let key = ObjectIdentifier(voice.sound)
            activeBySound[key, default: 1] -= 1
            if activeBySound[key] == 0 { activeBySound[key] = nil }
        }
        if let pinned = voice.record.pinned {
            // The last voice on a reloaded sound's old buffer frees it.
            voice.record.pinned = nil
            engine?.effectCacheLocked.releaseLocked(pinned)
        }
        engine?.postLocked(.voiceFinished(voice: voice.id, sound: voice.sound.name, completed: completed))
        if let completion = voice.completion {
            voice.completion = nil
            engine?.postLocked(callback: { completion(completed) })
        }
    }

    /// A refusal's reason, as a monitor's event line gives it.
    static func describe(_ reason: PlaybackEvent.RefusalReason) -> String {
        switch reason {
        case .allVoicesMoreImportant: "voiceLimit: every source plays a more important voice"
        case .retriggeredTooSoon: "retriggeredTooSoon: sooner than its minimum retrigger interval"
        case .loadFailed(let error): "loadFailed: \(error)"
        }
    }

    func removeFinished() {
        guard anyFinished else { return }
        anyFinished = false
        voices.removeAll { $0.phase == .finished }
    }

    /// Among the voices holding a source, the lowest priority, then the least
    /// audible, then the oldest, if it is no more important than `priority`
    /// (and, at the same priority, no more audible than `audibility`).
    func stealCandidate(below priority: Int, audibility: Float) -> Voice? {
        var best: Voice?
        for v in voices {
            switch v.phase {
            case .playing, .pausing, .paused: break
            default: continue
            }
            guard let b = best else {
                best = v
                continue
            }
            if (v.priority, v.record.audibility, v.record.requestFrame)
                < (b.priority, b.record.audibility, b.record.requestFrame)
            {
                best = v
            }
        }
        guard let best, best.priority < priority || (best.priority == priority && best.record.audibility <= audibility)
        else { return nil }
        return best
    }
}
