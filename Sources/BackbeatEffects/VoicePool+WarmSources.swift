import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL

extension VoicePool {
    // MARK: Warm sources

    func freeSource(of voice: Voice, keepWarm: Bool = false) {
        guard let source = voice.record.source else { return }
        var warmth: Warmth?
        if keepWarm, let engine, voice.record.loopsInPlace, voice.record.leadInBuffer == nil, voice.numberOfLoops < 0,
            voice.isPlacedInWorld,
            !voice.record.introInQueue, case .loaded(let r) = voice.playedLoadState,
            let buffer = r.loop?.region ?? r.buffer, voice.record.queuedBuffers > 0
        {
            // Stopped, it keeps its queue (copies of one buffer, looping) and placement.
            source.stop()
            warmth = Warmth(
                buffer: buffer, copies: voice.record.queuedBuffers,
                placement: Placement(voice, listener: engine.listenerLocked), pitch: voice.rateValue)
        } else {
            source.clearForReuse()  // a free source holds no buffer; the next attach sets the rest
        }
        voice.record.queuedBuffers = 0
        voice.record.loopsInPlace = false
        if let lead = voice.record.leadInBuffer {
            device.deleteBuffer(lead)
            voice.record.leadInBuffer = nil
        }
        voice.record.source = nil
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
    func resumes(_ voice: Voice, resident r: SoundEffect.Resident, from warmth: Warmth) -> Bool {
        guard let engine, voice.numberOfLoops < 0, voice.isPlacedInWorld,
            (r.loop?.region ?? r.buffer) == warmth.buffer
        else { return false }
        return copiesToQueue(voice, resident: r, engine: engine) == warmth.copies
    }

    /// A free source, preferring (among the last few given back) one that
    /// still holds `buffer`; with its warmth (nil for `buffer` nil: a cold start).
    func takeFree(matching buffer: UInt32?) -> (ALSource, Warmth?)? {
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
}
