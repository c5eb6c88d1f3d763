import BackbeatEngine

extension Voice {
    /// Where the voice's sound began, in engine frames, as the device
    /// measures it: its source's play position and the device clock read
    /// together (`AL_SAMPLE_OFFSET_CLOCK_SOFT`), less its silent lead-in. Nil
    /// until the sound itself is playing on a real device, and for a voice
    /// that moved sources, loops in place, or plays at another rate than the
    /// output's. For tests of `play(at:)` on a device.
    package var measuredStartFrame: Int64? {
        guard let engine else { return nil }
        return engine.withLock { () -> Int64? in
            guard rateValue == 1, case .loaded(let r) = playedLoadState, r.sampleRate == engine.sampleRate,
                let reading = deviceStartLocked(), reading.played > 0
            else { return nil }
            return reading.startFrame
        }
    }

    /// The engine frame a voice just started on a real device is heard
    /// from, with the lock held: nil off a device, or for a voice with no
    /// source of its own yet (virtual, waiting, looping in place).
    ///
    /// The frame is read after `alSourcePlay`, not before it: OpenAL Soft's
    /// mixer runs on its own thread, and on a busy machine it may mix a
    /// period between the engine's look at its clock and the play. A
    /// capture stamps a play with this frame, so that a replay starts the
    /// sound where the device did.
    ///
    /// It looks at `engine`'s output kind (a constant) before anything else:
    /// a capture asks on every play, and an offline or file engine must pay
    /// one check for it, not the voice's weak reference to its engine and the
    /// device's lookup. (A device engine that fell back to a loopback device
    /// goes on to that lookup, which says nil.)
    ///
    /// - Parameter engine: The voice's engine.
    func heardStartFrameLocked(_ engine: AudioEngine) -> Int64? {
        guard case .device = engine.output else { return nil }
        return deviceStartLocked()?.startFrame
    }

    /// The device clock's frame and the sound frames the source has mixed,
    /// read together, and the frame the sound began on (or begins on, at
    /// the next mix, when it has mixed nothing yet). With the lock held.
    private func deviceStartLocked() -> (startFrame: Int64, played: Int64)? {
        guard let engine, !engine.device.isLoopback, phase == .playing, let source = record.source,
            record.playedBeforeAttach == 0, !record.loopsInPlace,
            case .loaded(let resident) = playedLoadState, resident.sampleRate > 0,
            let reading = try? engine.device.withContext("sampleOffsetWithClock", { source.sampleOffsetWithClock }),
            let clockFrame = engine.frameLocked(atDeviceClock: reading.clockNanoseconds)
        else { return nil }
        // Sound frames to output frames: a voice at rate 2 goes through twice
        // the sound in the same output frames.
        let soundPerOutput = Double(resident.sampleRate) / Double(engine.sampleRate) * Double(rateValue)
        let played = Int64(record.unqueuedFrames + reading.frames - record.leadInFrames)
        guard soundPerOutput > 0, soundPerOutput.isFinite else { return nil }
        return (clockFrame - Int64((Double(played) / soundPerOutput).rounded()), played)
    }
}
