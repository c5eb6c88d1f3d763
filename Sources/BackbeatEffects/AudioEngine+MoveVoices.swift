import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

extension AudioEngine {
    /// Moves many voices at once: `voices[i]` to `positions[i]`, as setting
    /// each one's ``Voice/position`` would, on the same mixed frame.
    ///
    /// This is the cheap way for a game to move its emitters every frame: it
    /// takes the engine lock once for the whole array, and a voice without an
    /// OpenAL source (a virtual one, out of earshot) costs only the store of
    /// its point; the audibility pass at the next update step decides which
    /// voices hold sources. A point with a NaN or infinite coordinate leaves
    /// its voice where it was; a voice that has finished is ignored.
    ///
    /// - Parameters:
    ///   - voices: Voices of this engine.
    ///   - positions: Their new positions in metres, one per voice.
    /// - Throws: `invalidArgument` when the arrays differ in length or a voice
    ///   belongs to another engine (nothing is moved then); `engineShutDown`
    ///   after ``shutdown()``.
    ///
    /// - Parameters:
    ///   - voices: The voices to move, all of this engine.
    ///   - positions: Where each one goes, in metres: `positions[i]` for `voices[i]`.
    public func moveVoices(_ voices: [Voice], to positions: [Audio3DPoint]) throws {
        guard voices.count == positions.count else {
            throw BackbeatError(
                .invalidArgument, operation: "AudioEngine.moveVoices(_:to:)",
                reason: "\(voices.count) voices but \(positions.count) positions")
        }
        guard !voices.isEmpty else { return }
        try withLock {
            let pool = voicePoolLocked
            // A game's voices share a few sounds: each sound's engine is checked
            // once (a weak load per voice would cost more than the move), and
            // not at all when the batch is the one the pool was given last.
            if !pool.isCachedBatch(voices) {
                try checkEngine(of: voices)
            }
            try device.withContext("AudioEngine.moveVoices(_:to:)") {
                try device.deferUpdates()
                defer { if openBatches == 0 { device.processUpdates() } }
                if pool.moveBatch(voices, to: positions) { pool.audibilityDirty = true }
            }
            recordMoveBatchLocked(voices, positions)
        }
    }

    private func checkEngine(of voices: [Voice]) throws {
        try withUnsafeTemporaryAllocation(of: ObjectIdentifier.self, capacity: 8) { checked in
            var count = 0
            var next = 0
            for voice in voices {
                let sound = ObjectIdentifier(voice.sound)
                if checked[0..<count].contains(sound) { continue }
                guard voice.sound.engine === self else {
                    throw BackbeatError(
                        .invalidArgument, operation: "AudioEngine.moveVoices(_:to:)",
                        reason: "voice \(voice.id) belongs to another engine")
                }
                checked[next] = sound
                next = (next + 1) % 8
                count = min(count + 1, 8)
            }
        }
    }
}

extension Voice {
    /// Places the voice at `p` (finite), with the engine lock held and the
    /// device's context current; what ``position`` does, less the pool's
    /// audibility flag, which the caller raises once. Returns whether it moved.
    func moveLocked(to p: Audio3DPoint) -> Bool {
        #if DEBUG
        // Only in debug builds: a batch moves thousands of voices a step, and
        // reaching the engine through the sound's weak reference is not free.
        #if DEBUG
        engine?.preconditionLocked()
        #endif
        #endif
        if case .finished = phase { return false }
        let wasPlaced = positionValue != nil
        positionValue = p
        glide = nil
        guard let source = record.source else { return true }
        if wasPlaced, renderingValue != .stereoPassThrough {
            let heard = heardPointLocked(p)
            source.move(x: heard.x, y: heard.y, z: heard.z)
        } else {
            applyPlacement(to: source)
        }
        return true
    }
}
