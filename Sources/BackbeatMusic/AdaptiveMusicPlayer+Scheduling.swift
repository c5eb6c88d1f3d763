import BackbeatEngine
import BackbeatMedia

extension Ramp {
    /// A ramp that stays at `value`.
    static func constant(_ value: Float) -> Ramp {
        Ramp(from: value, to: value, startFrame: 0, frames: 0, curve: .linear)
    }
}

// Scheduling, in engine frames, under the engine lock.
extension AdaptiveMusicPlayer {
    /// The section heard at the engine's current frame.
    func heardNow() -> (name: String, start: Int64, generation: UInt64)? {
        if let pending, let engine, engine.currentFrameLocked >= pending.start { return pending }
        return heard
    }

    /// The first engine frame a stream can start on exactly: the next update step, plus the output's latency
    /// (and a step's margin on a real-time output, whose clock runs between steps).
    func earliestLocked(_ engine: AudioEngine) -> Int64 {
        #if DEBUG
        engine.preconditionLocked()
        #endif
        let interval = Int64(engine.updateInterval)
        let now = engine.currentFrameLocked
        var next = (now + interval - 1) / interval * interval
        if !engine.device.isLoopback { next += 2 * interval }
        return next + engine.latencyFrames
    }

    /// With `orUpcoming`, a section scheduled but not heard yet counts when
    /// none is heard: its first frame is its first beat and bar.
    func boundaryLocked(_ quantization: MusicQuantization, engine: AudioEngine, orUpcoming: Bool = false) -> Int64 {
        #if DEBUG
        engine.preconditionLocked()
        #endif
        let earliest = earliestLocked(engine)
        guard let now = heardNow() ?? (orUpcoming ? pending : nil), let section = sections[now.name],
            quantization != .immediate
        else {
            return earliest
        }
        let elapsed = earliest - now.start
        let rate = engine.sampleRate
        switch quantization {
        case .immediate:
            return earliest
        case .beat, .bar:
            guard let tempo = section.tempo else { return earliest }
            let every = quantization == .bar ? Int64(tempo.beatsPerBar) : 1
            return now.start + tempo.nextFrame(atOrAfter: elapsed, every: every, sampleRate: rate)
        case .segmentEnd:
            return now.start + Self.segmentEnd(atOrAfter: elapsed, of: section)
        }
    }

    /// The first end of a segment (a pass of the loop, or the file) at or after `elapsed`; `elapsed` past the end.
    static func segmentEnd(atOrAfter elapsed: Int64, of section: Resolved) -> Int64 {
        guard let loop = section.loop, loop.length > 0 else { return max(elapsed, section.frames) }
        let firstEnd = loop.intro + loop.length
        if elapsed <= firstEnd { return firstEnd }
        let passes = (elapsed - loop.intro + loop.length - 1) / loop.length
        if let total = loop.passes, passes > Int64(total) {
            return max(elapsed, section.frames + Int64(total - 1) * loop.length)
        }
        return loop.intro + passes * loop.length
    }

    func dropPendingLocked() {
        #if DEBUG
        engine?.preconditionLocked()
        #endif
        if let pending {
            for p in active {
                if case .section(let g) = p.kind, g == pending.generation { p.retireAt = 0 }
            }
            // The old section was to fade on the dropped boundary: it plays on.
            if let engine, engine.currentFrameLocked >= pending.start {
                heard = pending
            } else if let heard {
                for p in active {
                    if case .section(let g) = p.kind, g == heard.generation {
                        p.fade = .constant(1)
                        p.retireAt = nil
                    }
                }
            }
            self.pending = nil
        }
        retireLocked()
    }

    /// The first update step whose mix is heard from output frame `boundary` on.
    func stepLocked(heardFrom boundary: Int64, engine: AudioEngine) -> Int64 {
        #if DEBUG
        engine.preconditionLocked()
        #endif
        let interval = Int64(engine.updateInterval)
        return (max(0, boundary - engine.latencyFrames) + interval - 1) / interval * interval
    }

    /// Cuts a section on output frame `boundary`: full level up to it, then a
    /// ramp over one update step (the first step whose mix is heard from the boundary on).
    func cutLocked(generation: UInt64?, at boundary: Int64, engine: AudioEngine) {
        #if DEBUG
        engine.preconditionLocked()
        #endif
        let step = stepLocked(heardFrom: boundary, engine: engine)
        fadeOutLocked(generation: generation, from: step, frames: Int64(engine.updateInterval), equalPower: false)
    }

    func fadeOutLocked(generation: UInt64?, from start: Int64, frames: Int64, equalPower: Bool) {
        #if DEBUG
        engine?.preconditionLocked()
        #endif
        guard let generation else { return }
        for p in active {
            guard case .section(let g) = p.kind, g == generation else { continue }
            p.fade = Ramp(from: 1, to: 0, startFrame: start, frames: frames, curve: equalPower ? .equalPower : .linear)
            p.retireAt = start + frames + 1
        }
    }

    func startStreamLocked(
        asset: AudioAsset, looping: Looping? = nil, layer: String?, kind: Playing.Kind, at start: Int64, fade: Ramp,
        engine: AudioEngine,
        startFrame: Int64 = 0
    ) throws {
        #if DEBUG
        engine.preconditionLocked()
        #endif
        let stream: AudioStream
        if let reused = spare.popLast() {
            stream = reused
        } else {
            stream = try AudioStream(engine: engine)
            core.adopt(stream)
        }
        let playing = Playing(stream: stream, layer: layer, kind: kind, fade: fade)
        stream.gain = { [weak self, unowned playing] frame in
            guard let self else { return 0 }
            let layerGain = playing.layer.flatMap { self.layerGains[$0]?.value(at: frame) } ?? 1
            return self.core.level.gain(at: frame) * playing.fade.value(at: frame) * layerGain
        }
        stream.onEvent = { [unowned playing] event in
            if case .drained = event { playing.drained = true }
        }
        stream.restart(
            with: [
                StreamEntry(
                    id: StreamEntry.nextID(), asset: asset, startFrame: startFrame,
                    loop: StreamLoop(points: asset.explicitLoopPoints, looping: looping ?? asset.looping))
            ], rampIn: false)
        stream.start(atFrame: start)
        active.append(playing)
    }

    func retireLocked() {
        guard let engine else { return }
        #if DEBUG
        engine.preconditionLocked()
        #endif
        let now = engine.currentFrameLocked
        active.removeAll { p in
            guard p.drained || (p.retireAt.map { now >= $0 } ?? false) else { return false }
            p.stream.restart(with: [], rampIn: false)
            p.stream.setPlaying(false)
            p.stream.gain = { _ in 1 }
            p.stream.onEvent = { _ in }
            spare.append(p.stream)
            return true
        }
    }

    /// Pauses where the section is heard at the next update step: remembers
    /// the file frame heard there, then cuts everything (sections and stingers).
    /// Returns whether something was playing.
    @discardableResult
    func suspendLocked(engine: AudioEngine) -> Bool {
        #if DEBUG
        engine.preconditionLocked()
        #endif
        guard suspended == nil else { return false }
        let boundary = boundaryLocked(.immediate, engine: engine)
        let scheduled = pending
        dropPendingLocked()
        // A section asked for but not heard yet is paused at its start.
        guard let now = heard ?? scheduled, let section = sections[now.name] else { return false }
        suspended = (now.name, Self.position(elapsed: boundary - now.start, in: section))
        cutLocked(generation: now.generation, at: boundary, engine: engine)
        let interval = Int64(engine.updateInterval)
        let step = stepLocked(heardFrom: boundary, engine: engine)
        for p in active where p.retireAt == nil {
            if case .stinger = p.kind {
                p.fade = Ramp(from: 1, to: 0, startFrame: step, frames: interval, curve: .linear)
                p.retireAt = step + interval + 1
            }
        }
        heard = nil
        return true
    }

    /// Starts the paused section again from where it was, as a seek does, ramped in over one update step.
    func resumeLocked(engine: AudioEngine) {
        #if DEBUG
        engine.preconditionLocked()
        #endif
        guard let (name, position) = suspended, let section = sections[name] else { return }
        suspended = nil
        interrupted = false
        let boundary = boundaryLocked(.immediate, engine: engine)
        let step = stepLocked(heardFrom: boundary, engine: engine)
        let rampIn = Ramp(from: 0, to: 1, startFrame: step, frames: Int64(engine.updateInterval), curve: .linear)
        generation += 1
        for stem in section.section.stems {
            try? startStreamLocked(
                asset: stem.asset, layer: stem.layer, kind: .section(generation), at: boundary, fade: rampIn,
                engine: engine, startFrame: position)
        }
        pending = (name, boundary - position, generation)
    }

    /// The file frame heard `elapsed` frames after a section started: in the
    /// loop region once past its first pass (the passes are counted afresh
    /// on resuming), in the tail after the last pass of a finite loop.
    static func position(elapsed: Int64, in section: Resolved) -> Int64 {
        let elapsed = max(0, elapsed)
        guard let loop = section.loop, loop.length > 0, elapsed >= loop.intro + loop.length else {
            return min(elapsed, section.frames)
        }
        if let passes = loop.passes, elapsed >= loop.intro + Int64(passes) * loop.length {
            return min(elapsed - Int64(passes - 1) * loop.length, section.frames)
        }
        return loop.intro + (elapsed - loop.intro) % loop.length
    }
}
