import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension VoicePool {
    // MARK: Dormant voices

    /// Gives `voice` a row of the table.
    func takeSlot(for voice: Voice) {
        guard voice.record.slot < 0 else { return }
        voice.record.slot = table.insert(voice)
    }

    /// Gives back the row of a voice that ended (waking it first if it slept).
    func releaseSlot(of voice: Voice) {
        let s = voice.record.slot
        guard s >= 0 else { return }
        if voice.record.isDormant {
            voice.storedPosition = table.point(at: s)
            voice.record.isDormant = false
            dormantCount -= 1
        }
        table.remove(at: s)
        voice.record.slot = -1
    }

    /// A dormant voice's point.
    func dormantPoint(_ slot: Int) -> Audio3DPoint { table.point(at: slot) }

    /// Moves a dormant voice (the next audibility pass looks at it).
    func setDormantPoint(_ slot: Int, _ p: Audio3DPoint) {
        if table.move(row: slot, to: p, listener: scannedListener) { pendingWake.append(slot) }
    }

    /// Sound frames a virtual voice has played, not yet counted in its
    /// `played`, up to now: since it went dormant, or since its last update
    /// step (a render steps only the periods with work). Its time stands
    /// while it or its bus is paused.
    func virtualTime(of voice: Voice) -> Double {
        guard let engine, case .loaded(let r) = voice.playedLoadState else { return 0 }
        let since = voice.record.isDormant ? voice.record.dormantSince : voice.record.lastUpdateFrame
        let stands = voice.record.timeStands || voice.userPaused || (voice.bus?.stepPaused ?? false)
        guard voice.record.isDormant || !stands else { return 0 }
        return Double(max(0, engine.currentFrameLocked - since)) * Self.step(voice, r, outputRate: engine.sampleRate)
    }

    /// Whether a virtual voice, found out of earshot, can sleep in the table:
    /// an endless loop, placed in the world, with nothing that needs the
    /// update step (no pause, glide or ramp) and no cone (its audibility is
    /// then a matter of distance alone).
    func canSleep(_ voice: Voice) -> Bool {
        guard voice.record.slot >= 0, !voice.record.isDormant, voice.numberOfLoops < 0, voice.isPlacedInWorld,
            !voice.userPaused, !(voice.bus?.stepPaused ?? false), voice.glide == nil,
            voice.volumeRamp == nil, voice.rateRamp == nil, case .loaded(let r) = voice.playedLoadState,
            r.buffer != nil
        else { return false }
        return voice.directionValue == nil || voice.coneValue.innerAngle >= 360
    }

    /// Puts a virtual voice to sleep in its row (its time is up to date to its last update step).
    func sleep(_ voice: Voice, listener: Listener) {
        let s = voice.record.slot
        let level = voice.gain * (voice.bus?.stepGain ?? 1) * voice.record.acousticGain
        table.sleep(
            row: s, at: voice.storedPosition ?? .zero, level: level,
            reach: reach(of: voice, level: level, listener: listener))
        voice.record.dormantSince = voice.record.lastUpdateFrame
        voice.record.isDormant = true
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

    func wake(_ voice: Voice, countingTo end: Int64, resumingAt resume: Int64) {
        guard voice.record.isDormant, let engine else { return }
        removeSleepers()  // so it is in the list once
        let s = voice.record.slot
        if case .loaded(let r) = voice.playedLoadState {
            voice.record.played +=
                Double(end - voice.record.dormantSince) * Self.step(voice, r, outputRate: engine.sampleRate)
        }
        voice.storedPosition = table.point(at: s)
        voice.record.isDormant = false
        table.wake(row: s)
        dormantCount -= 1
        wakes += 1
        voice.record.lastUpdateFrame = resume
        voices.append(voice)
        audibilityDirty = true
    }

    /// Takes voices that went dormant outside a pass out of the list of voices.
    func removeSleepers() {
        guard sleptOutsidePass else { return }
        sleptOutsidePass = false
        voices.removeAll { $0.record.isDormant }
    }

    func wakeAll() {
        guard dormantCount > 0 else { return }
        for s in 0..<table.rowCount { if let voice = table[s], voice.record.isDormant { wake(voice) } }
    }

    /// The squared distance from the listener within which `voice` at
    /// `level` is heard at or above the threshold, by exactly the test
    /// ``audibility(of:listener:)`` makes (-1: nowhere; infinity: everywhere).
    /// Every distance curve falls with distance, so the test holds up to one
    /// squared distance and fails beyond it: found by halving the range of
    /// Float bit patterns (positive Floats order as their bits do).
    func reach(of voice: Voice, level: Float, listener: Listener) -> Float {
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
        var low: UInt32 = 0
        var high = Float.infinity.bitPattern  // heard(low), not heard(high)
        // The curve's own inverse lands within a few Floats of the answer:
        // walk from there while that is short, else halve from the whole range.
        let estimate = Self.distance(atGain: threshold / level, d)
        if estimate.isFinite, estimate >= 0 {
            var bits = min((estimate * estimate).bitPattern, high - 1)
            var steps = 0
            while steps < 8, bits > 0, !heard(Float(bitPattern: bits)) {
                bits -= 1
                steps += 1
            }
            if heard(Float(bitPattern: bits)) {
                low = bits
                while steps < 16, heard(Float(bitPattern: low + 1)) {
                    low += 1
                    steps += 1
                }
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
        let r = d.referenceDistance
        let f = d.rolloffFactor
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
    func refreshDormant(listener: Listener, busesChanged: Bool, at frame: Int64) {
        let all = reachesStale
        reachesStale = false
        for s in 0..<table.rowCount {
            guard let voice = table[s], voice.record.isDormant else { continue }
            if busesChanged, voice.bus?.stepPaused ?? false {
                // Its time stops at the period before, and stands from here.
                wake(voice, countingTo: frame - Int64(engine?.updateInterval ?? 0), resumingAt: frame)
                voice.record.timeStands = true
                continue
            }
            let level = voice.gain * (voice.bus?.stepGain ?? 1) * voice.record.acousticGain
            guard all || level != table.level(at: s) else { continue }
            table.setReach(reach(of: voice, level: level, listener: listener), level: level, at: s)
        }
    }

    /// Finds every dormant voice within its reach of the listener at `l`
    /// (woken by the pass).
    func scanDormant(listener l: Audio3DPoint) {
        table.rowsWithinReach(of: l, into: &pendingWake)
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
        if !table.isCurrentBatch(voices) {
            table.rememberBatch(voices, rows: voices.map { Int32(truncatingIfNeeded: $0.record.slot) })
        }
        let near = table.storeBatch(positions, listener: scannedListener, near: &pendingWake)
        var moved = false
        let indexOfRow = table.batchIndexOfRow
        guard !indexOfRow.isEmpty else {
            // A small batch: its own voices, the dormant ones skipped.
            for i in 0..<voices.count where voices[i].record.slot < 0 || !voices[i].record.isDormant {
                let p = positions[i]
                guard p.isFinite else { continue }
                moved = voices[i].moveLocked(to: p) || moved
            }
            return moved || near
        }
        let unrowed = table.batchUnrowed
        positions.withUnsafeBufferPointer { positions in
            indexOfRow.withUnsafeBufferPointer { index in
                for voice in self.voices where !voice.record.isDormant {
                    let s = voice.record.slot
                    guard s >= 0, s < index.count else { continue }
                    let i = Int(index[s])
                    guard i >= 0, positions[i].isFinite else { continue }
                    moved = voice.moveLocked(to: positions[i]) || moved
                }
            }
            for i in unrowed {
                let p = positions[Int(i)]
                guard p.isFinite else { continue }
                moved = voices[Int(i)].moveLocked(to: p) || moved
            }
        }
        return moved || near
    }

    /// Whether `voices` is the array ``moveBatch(_:to:)`` was given last, and no row changed hands since.
    func isCachedBatch(_ voices: [Voice]) -> Bool { table.isCurrentBatch(voices) }

    /// Makes every voice look at its mix at the next step (the environment's slot changed).
    func unsettleAll() { for voice in voices { voice.isSettled = false } }
}
