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
    /// - Returns: Whether the estimate changed.
    @discardableResult
    func setAcousticGain(_ gain: Float, of voice: Voice) -> Bool {
        guard !gain.isNaN, voice.phase != .finished else { return false }
        let clamped = min(max(gain, 0), 1)
        guard clamped != voice.record.acousticGain else { return false }
        voice.record.acousticGain = clamped
        audibilityDirty = true
        let s = voice.record.slot
        guard voice.record.isDormant, s >= 0, let engine else { return true }
        let listener = engine.listenerLocked
        let level = voice.gain * (voice.bus?.stepGain ?? 1) * clamped
        let reach = reach(of: voice, level: level, listener: listener)
        table.setReach(reach, level: level, at: s)
        let p = table.point(at: s)
        let l = listener.position
        let (tx, ty, tz) = (l.x - p.x, l.y - p.y, l.z - p.z)
        if tx * tx + ty * ty + tz * tz <= reach { pendingWake.append(s) }
        return true
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
