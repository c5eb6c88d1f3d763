import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension VoicePool {
    // MARK: Audibility

    /// What the listener hears `voice` at, 0...1: its volume times its bus
    /// chain's gain, and for a positioned voice the distance attenuation,
    /// the cone weight that OpenAL applies and the level's estimate
    /// (``Record/acousticGain``).
    func audibility(of voice: Voice, listener: Listener) -> Float {
        let level = voice.gain * (voice.bus?.stepGain ?? 1)
        guard let p = voice.positionValue, voice.renderingValue != .stereoPassThrough else { return level }
        return placedGain(level * voice.record.acousticGain, of: voice, at: p, listener: listener)
    }

    /// `level` times the distance attenuation and cone weight OpenAL applies
    /// to a voice placed at `p` (passed in, so a dormant voice's row is read
    /// once), multiplied in the order ``reach(of:level:listener:)`` assumes.
    @inline(__always)
    func placedGain(_ level: Float, of voice: Voice, at p: Audio3DPoint, listener: Listener) -> Float {
        let tx = listener.position.x - p.x
        let ty = listener.position.y - p.y
        let tz = listener.position.z - p.z
        let squared = tx * tx + ty * ty + tz * tz
        let d = voice.distanceValue ?? listener.distanceParameters
        var gain = level
        if d.rolloffFactor > 0 && squared > d.referenceDistance * d.referenceDistance {
            gain *= d.gain(atDistance: squared.squareRoot())
        }
        if let facing = voice.directionValue, voice.coneValue.innerAngle < 360, squared > 0 {
            gain *= Self.coneWeight(facing: facing, toListener: (tx, ty, tz), cone: voice.coneValue)
        }
        return gain
    }

    /// OpenAL's cone weight: full inside the inner angle, the outer gain
    /// beyond the outer one, linear in the angle between them.
    static func coneWeight(facing f: Audio3DPoint, toListener t: (Float, Float, Float), cone: AudioCone) -> Float {
        let lengths = ((f.x * f.x + f.y * f.y + f.z * f.z) * (t.0 * t.0 + t.1 * t.1 + t.2 * t.2)).squareRoot()
        guard lengths > 0 else { return 1 }
        let cosine = min(max((f.x * t.0 + f.y * t.1 + f.z * t.2) / lengths, -1), 1)
        let angle = acos(cosine) * 360 / Float.pi  // the full angle this direction would need
        if angle <= cone.innerAngle { return 1 }
        if angle >= cone.outerAngle { return cone.outerGain }
        let along = (angle - cone.innerAngle) / (cone.outerAngle - cone.innerAngle)
        return 1 + (cone.outerGain - 1) * along
    }

    /// The audibility pass: computes every live voice's audibility, sends
    /// positioned voices below the threshold virtual, and gives sources to the
    /// most audible virtual voices (most important first), taking them from
    /// less audible voices when the audible set is larger than the sources.
    /// Runs on the update steps after something it depends on changed; sorts
    /// only when there are more audible voices than sources.
    func updateAudibility(at frame: Int64, busesChanged: Bool) {
        guard let engine else { return }
        // The lists hold voices only while a pass runs: a voice that ends
        // later must not live on here, keeping its sound and the sound's buffers.
        defer {
            waiting.removeAll(keepingCapacity: true)
            holding.removeAll(keepingCapacity: true)
        }
        audibilityDirty = false
        let listener = engine.listenerLocked
        if dormantCount == 0 {
            // An empty table is looked at from anywhere: the moves and sleeps
            // from here on are checked against this listener.
            scannedListener = listener.position
            reachesStale = false
        } else {
            if busesChanged || reachesStale {
                refreshDormant(listener: listener, busesChanged: busesChanged, at: frame)
                scannedListener = Audio3DPoint(x: .nan, y: .nan, z: .nan)
            }
            if scannedListener != listener.position {
                pendingWake.removeAll(keepingCapacity: true)
                scanDormant(listener: listener.position)
                scannedListener = listener.position
            }
        }
        if !pendingWake.isEmpty {
            for s in pendingWake { if let voice = table[s], voice.record.isDormant { wake(voice) } }
            pendingWake.removeAll(keepingCapacity: true)
            audibilityDirty = false  // this pass looks at the woken voices
        }
        waiting.removeAll(keepingCapacity: true)
        var holdingCount = 0
        var slept = false
        for voice in voices where !voice.record.isDormant {
            switch voice.phase {
            case .playing:
                let a = audibility(of: voice, listener: listener)
                voice.record.audibility = a
                if a < thresholdGain && voice.isPlacedInWorld {
                    giveBack(voice, now: frame)
                } else {
                    holdingCount += 1
                }
            case .virtual:
                let a = audibility(of: voice, listener: listener)
                voice.record.audibility = a
                guard !voice.userPaused, !(voice.bus?.stepPaused ?? false) else { continue }
                if voice.isPlacedInWorld && a < thresholdGain {
                    // It sleeps only once the margin below the threshold (it
                    // wakes at the threshold): a voice near the line stays awake.
                    if a < sleepGain, canSleep(voice) {
                        sleep(voice, listener: listener)
                        slept = true
                    }
                    continue
                }
                // A sound a replacement device does not have yet keeps its voices virtual.
                guard case .loaded(let r) = voice.playedLoadState, r.buffer != nil else { continue }
                waiting.append(voice)
            case .pausing, .paused, .scheduled, .waitingForSource:
                voice.record.audibility = audibility(of: voice, listener: listener)
            default:
                break
            }
        }
        if slept { voices.removeAll { $0.record.isDormant } }
        guard !waiting.isEmpty else { return }
        if waiting.count > max(0, capacity - audibleCount) {
            waiting.sort {
                ($0.priority, $0.record.audibility, -$0.record.requestFrame)
                    > ($1.priority, $1.record.audibility, -$1.record.requestFrame)
            }
        }
        let next = realize(from: 0, at: frame)
        guard next < waiting.count, holdingCount > 0 else { return }
        // More audible voices than sources: the least audible voices holding
        // one (lowest priority first) go virtual for the most audible waiting ones.
        holding.removeAll(keepingCapacity: true)
        for voice in voices where voice.phase == .playing { holding.append(voice) }
        holding.sort {
            ($0.priority, $0.record.audibility, $0.record.requestFrame)
                < ($1.priority, $1.record.audibility, $1.record.requestFrame)
        }
        var victims = 0
        for candidate in waiting[next...] {
            guard victims < holding.count else { break }
            let victim = holding[victims]
            let wins =
                candidate.priority > victim.priority
                || (candidate.priority == victim.priority
                    && candidate.record.audibility > victim.record.audibility * Self.hysteresis)
            guard wins else { break }
            engine.postLocked(.voiceStolen(voice: victim.id, sound: victim.sound.name, by: candidate.id))
            postTelemetry(engine, .voiceStolen, victim, "more audible: by voice \(candidate.id.raw)")
            release(victim, now: frame, becomeVirtual: true)
            victims += 1
        }
        guard victims > 0 else { return }
        // The hand-off reserve lets the winners start now, while the others fade out.
        _ = realize(from: next, at: frame)
    }

    /// Gives free sources, within the capacity, to `waiting[start...]` in
    /// order; returns the index of the first voice left waiting.
    func realize(from start: Int, at frame: Int64) -> Int {
        var index = start
        while index < waiting.count, audibleCount < capacity, !free.isEmpty {
            let voice = waiting[index]
            index += 1
            guard case .loaded(let r) = voice.playedLoadState,
                let (source, warmth) = takeFree(matching: r.loop?.region ?? r.buffer)
            else { continue }
            attach(voice, to: source, resident: r, leadIn: 0, fadeIn: true, warmth: warmth)
            applyGain(voice, at: frame)
            if let engine {
                engine.postLocked(.voiceRealized(voice: voice.id, sound: voice.sound.name))
                postTelemetry(engine, .voiceReal, voice)
            }
        }
        // Voices left waiting get a source when a fade-out ends or a voice
        // finishes: both mark the pass to run again.
        return index
    }

    func applyGain(_ voice: Voice, at frame: Int64) {
        applyGain(voice, busGain: voice.bus?.effectiveGain(at: frame) ?? 1)
    }

    func applyGain(_ voice: Voice, busGain: Float) {
        guard let source = voice.record.source else { return }
        let gain = voice.gain * busGain
        if gain != voice.record.appliedGain {
            source.setGain(gain)
            voice.record.appliedGain = gain
        }
    }
}
