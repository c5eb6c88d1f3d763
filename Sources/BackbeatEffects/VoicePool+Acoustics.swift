import BackbeatEngine

extension VoicePool {
    // MARK: The level's estimate

    /// Sets the level's estimate of what reaches the listener from `voice`
    /// (``Record/acousticGain``) and lets the audibility pass look again: a
    /// dormant voice's reach is worked out again for its new level, and it
    /// wakes if it is now within it. Engine lock held.
    ///
    /// - Parameters:
    ///   - gain: The estimate, 0...1 (clamped; NaN leaves it as it was).
    ///   - voice: A voice of this pool.
    /// - Returns: Whether the estimate changed, and whether that needs an
    ///   update step soon: the voice may cross the audibility threshold
    ///   (take a source or give it back) or wake. Any other change waits
    ///   for the next step the engine makes anyway, where the audibility
    ///   pass sees it (a step a game frame for a level's hundreds of small
    ///   changes would cost more than they do).
    @discardableResult
    func setAcousticGain(_ gain: Float, of voice: Voice) -> (changed: Bool, needsStep: Bool) {
        guard !gain.isNaN, voice.phase != .finished else { return (false, false) }
        let clamped = min(max(gain, 0), 1)
        let before = voice.record.acousticGain
        guard clamped != before else { return (false, false) }
        voice.record.acousticGain = clamped
        audibilityDirty = true
        let s = voice.record.slot
        guard voice.record.isDormant, s >= 0, let engine else {
            // The last pass's audibility, scaled to the new estimate (the
            // audibility is proportional to it): whether it crosses the
            // threshold. Kept scaled, so changes between two passes add up.
            let was = voice.record.audibility
            guard before > 0 else { return (true, clamped > 0) }
            let now = was / before * clamped
            voice.record.audibility = now
            return (true, (was >= thresholdGain) != (now >= thresholdGain))
        }
        let listener = engine.listenerLocked
        let level = voice.gain * (voice.bus?.stepGain ?? 1) * clamped
        let reach = reach(of: voice, level: level, listener: listener)
        table.setReach(reach, level: level, at: s)
        let p = table.point(at: s)
        let l = listener.position
        let (tx, ty, tz) = (l.x - p.x, l.y - p.y, l.z - p.z)
        if tx * tx + ty * ty + tz * tz <= reach {
            pendingWake.append(s)
            return (true, true)
        }
        return (true, false)
    }

    /// Up to `limit` dormant voices and their points, from row `start` on
    /// (wrapping once round the table), and the row to go on from next time.
    /// Engine lock held.
    ///
    /// - Parameters:
    ///   - start: The first row to look at.
    ///   - limit: The most voices to return.
    func dormantVoices(from start: Int, limit: Int) -> (voices: [(Voice, Audio3DPoint)], next: Int) {
        let rows = table.rowCount
        guard dormantCount > 0, rows > 0, limit > 0 else { return ([], 0) }
        var found: [(Voice, Audio3DPoint)] = []
        found.reserveCapacity(min(limit, dormantCount))
        var row = start < rows ? max(start, 0) : 0
        var looked = 0
        while looked < rows, found.count < limit {
            if let voice = table[row], voice.record.isDormant { found.append((voice, table.point(at: row))) }
            row = row + 1 == rows ? 0 : row + 1
            looked += 1
        }
        return (found, row)
    }
}
