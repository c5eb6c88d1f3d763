import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL

extension VoicePool {
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
            } else if voice.phase == .playing, case .loaded(let r) = voice.playedLoadState, let engine {
                estimatePlayed(voice, to: frame, resident: r, outputRate: engine.sampleRate)
            }
            voice.record.lastUpdateFrame = frame
            voice.isSettled = false
            switch voice.phase {
            case .playing, .pausing, .paused:
                voice.phase = .virtual
            case .stopping(_, let thenVirtual):
                if thenVirtual {
                    voice.phase = .virtual
                } else {
                    voice.record.source = nil
                    finish(voice, completed: false)
                }
            case .waitingForSource:
                voice.phase = .scheduled(voice.record.scheduledTarget)
            default:
                break
            }
            voice.record.source = nil
            voice.record.leadInBuffer = nil
            voice.record.appliedGain = -1
            if voice.record.awaitingHandoff { voice.record.awaitingHandoff = false }
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
        engine.existingEffectsLocked?.cache?.reloadAll()
    }

    /// Applies every sourced voice's position (or pan) again, after the
    /// distance parameters changed. With the lock held.
    func reapplyPlacementsLocked() {
        guard let engine else { return }
        #if DEBUG
        engine.preconditionLocked()
        #endif
        reachesStale = true
        _ = try? engine.device.withContext {
            for voice in voices { if let source = voice.record.source { voice.applyPlacement(to: source) } }
        }
    }

    /// Stops every voice at once, without ramps (engine shutdown).
    func engineWillShutDown() {
        wakeAll()
        table.forgetBatch()
        for voice in voices {
            finish(voice, completed: false)
            freeSource(of: voice)
        }
        voices.removeAll()
        coolFreeSources(holding: nil)
    }
}
