#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BackbeatSupport
import BackbeatMedia
import BackbeatSession
import BackbeatEngine

/// Where a change of section, or a stinger, starts.
public enum MusicQuantization: String, Sendable, Hashable, Codable, CaseIterable {
    /// As soon as the engine can start it exactly.
    case immediate
    /// On the current section's next beat.
    case beat
    /// On the current section's next bar line.
    case bar
    /// At the end of the current segment: the end of the loop's current pass (or of the file).
    case segmentEnd
}

/// How a change of section sounds.
public enum MusicTransitionStyle: Sendable, Hashable, Codable {
    /// The old section stops on the boundary (a ramp of one update step, a few
    /// milliseconds, so it never clicks) and the new one starts at full level.
    case cut
    /// Equal-power: the old section fades out and the new one in over this long, from the boundary.
    case crossfade(MediaTime)
}

/// One stem of a section: a file played sample-locked with the section's other stems.
public struct MusicStem: Sendable {
    /// The layer the stem belongs to; ``AdaptiveMusicPlayer/setLayerGain(_:to:duration:)`` sets its level.
    public var layer: String
    /// The stem's file (its loop points and ``AudioAsset/looping`` are honoured).
    public var asset: AudioAsset

    /// A stem of `layer`.
    public init(layer: String, asset: AudioAsset) {
        self.layer = layer
        self.asset = asset
    }
}

/// A section of adaptive music: one or more stems (vertical layers) that
/// start together, sample-locked, and its tempo.
public struct MusicSection: Sendable {
    /// The name a game switches to it by.
    public var name: String
    /// The stems; the first one's length and loop points give the section's segments.
    public var stems: [MusicStem]
    /// The tempo; nil takes it from the first stem's tags (`BPM`/`TEMPO`, `TIMESIGNATURE`).
    public var tempo: TempoMap?

    /// A section of several stems.
    public init(name: String, stems: [MusicStem], tempo: TempoMap? = nil) {
        self.name = name
        self.stems = stems
        self.tempo = tempo
    }

    /// A section of one file, on the layer `main`.
    public init(name: String, asset: AudioAsset, tempo: TempoMap? = nil) {
        self.init(name: name, stems: [MusicStem(layer: "main", asset: asset)], tempo: tempo)
    }
}

/// Music that follows the game: sections changed on the next beat, bar or
/// segment end (cut, crossfade, or through a transition segment), stingers on
/// the beat, and vertical layers whose gains a game sets (or a
/// ``GameParameter`` drives). Everything is scheduled in engine time, exact to
/// the frame; stems are streamed (never decoded whole) and start sample-locked.
///
/// ```swift
/// let music = try AdaptiveMusicPlayer(engine: engine, sections: [explore, combat])
/// try music.play(section: "explore")
/// let at = try music.transition(to: "combat", quantization: .bar, style: .crossfade(MediaTime(seconds: 1)))
/// try music.playStinger(AudioAsset(url: hit), quantization: .beat)
/// music.setLayerGain("drums", to: 1, duration: MediaTime(seconds: 2))
/// ```
public final class AdaptiveMusicPlayer: @unchecked Sendable, SessionMusicPlayer {
    // @unchecked: every mutable member is touched only under the engine lock.

    /// A section with what scheduling needs, in engine frames.
    struct Resolved {
        let section: MusicSection
        let tempo: TempoMap?
        /// The first stem's length.
        let frames: Int64
        /// The loop region (intro length, region length) and the passes (nil: forever).
        let loop: (intro: Int64, length: Int64, passes: Int?)?
    }

    private final class Playing {
        enum Kind { case section(UInt64), stinger }
        let stream: AudioStream
        let layer: String?
        let kind: Kind
        var fade: Ramp
        var retireAt: Int64?
        var drained = false
        init(stream: AudioStream, layer: String?, kind: Kind, fade: Ramp) {
            self.stream = stream
            self.layer = layer
            self.kind = kind
            self.fade = fade
        }
    }

    weak var engine: AudioEngine?
    private let sections: [String: Resolved]
    private var active: [Playing] = []
    private var spare: [AudioStream] = []
    /// The section heard now (its start is the frame its first frame was heard), and one scheduled to follow.
    private var heard: (name: String, start: Int64, generation: UInt64)?
    private var pending: (name: String, start: Int64, generation: UInt64)?
    private var generation: UInt64 = 0
    private var layerGains: [String: Ramp] = [:]
    private var volumeValue: Float = 1
    private var component: Component?
    /// Where a paused player resumes: the section and the file frame its stems continue from.
    private var suspended: (name: String, position: Int64)?
    /// Paused by an interruption (it resumes when the session says so), not by a route change or the game.
    private var interrupted = false
    /// Muted by the session (silent switch, other audio in an ambient session), time running.
    private var sessionMuted = false
    /// The engine's shutdown fade, once begun.
    private var shutdownFade: Ramp?
    package let sessionPlayerID = SessionPlayerID.next()

    /// A player of `sections` on `engine`; nothing plays until ``play(section:)``.
    /// Each stem is opened once now, to learn its length, rate and loop points.
    /// - Throws: ``BackbeatError/Code/invalidArgument`` for no sections, a
    ///   section without stems, or two sections of one name; the decoders'
    ///   errors for a stem that cannot be opened; `.invalidLoopPoints` for loop points set past a stem's end.
    public init(engine: AudioEngine, sections: [MusicSection]) throws {
        guard !sections.isEmpty else {
            throw BackbeatError(.invalidArgument, operation: "AdaptiveMusicPlayer", reason: "no sections")
        }
        var resolved: [String: Resolved] = [:]
        for section in sections {
            guard let first = section.stems.first else {
                throw BackbeatError(
                    .invalidArgument, operation: "AdaptiveMusicPlayer",
                    reason: "section \"\(section.name)\" has no stems")
            }
            guard resolved[section.name] == nil else {
                throw BackbeatError(
                    .invalidArgument, operation: "AdaptiveMusicPlayer", reason: "two sections named \"\(section.name)\""
                )
            }
            for stem in section.stems.dropFirst() { _ = try stem.asset.schedulingInfo() }
            let info = try first.asset.schedulingInfo()
            let rate = engine.sampleRate
            func atEngineRate(_ f: Int64) -> Int64 {
                MediaTime(frames: f, sampleRate: info.format.sampleRate).frames(atSampleRate: rate)
            }
            var loop: (Int64, Int64, Int?)?
            if let points = info.loopPoints, first.asset.looping != .once {
                let extra = first.asset.looping.extraPlays
                loop = (atEngineRate(points.start), atEngineRate(points.length), extra < 0 ? nil : extra + 1)
            }
            resolved[section.name] = Resolved(
                section: section, tempo: section.tempo ?? TempoMap(tags: info.tags),
                frames: atEngineRate(info.frameCount), loop: loop)
        }
        self.sections = resolved
        self.engine = engine
        let component = Component()
        self.component = component
        engine.withLock {
            component.player = self
            engine.registerLocked(component)
            engine.registerMusicPlayerLocked(self)
        }
    }

    deinit {
        for p in active { p.stream.close() }
        for s in spare { s.close() }
    }

    /// The engine calls the player through this (the player itself stays out of the engine's list).
    private final class Component: EngineComponent {
        weak var player: AdaptiveMusicPlayer?
        func update(at frame: Int64) throws { player?.update(at: frame) }
    }

    // MARK: Public API

    /// The names of the sections.
    public var sectionNames: [String] { sections.keys.sorted() }

    /// The section heard now (nil before the first plays, or after ``stop()``).
    public var currentSection: String? { locked { heardNow()?.name } }

    /// The section scheduled to start and not heard yet (nil when none is):
    /// right after ``play(section:)`` or a transition.
    public var upcomingSection: String? {
        locked {
            guard let pending, let engine, engine.currentFrameLocked < pending.start else { return nil }
            return pending.name
        }
    }

    /// The tempo of a section, if it has one.
    public func tempo(of section: String) -> TempoMap? { sections[section]?.tempo }

    /// The player's volume, 0...1 (clamped; NaN ignored).
    public var volume: Float {
        get { locked { volumeValue } }
        set { locked { if !newValue.isNaN { volumeValue = min(max(newValue, 0), 1) } } }
    }

    /// Starts `section` as soon as possible (any section heard stops, cut). Returns when it starts, in engine time.
    /// - Throws: ``BackbeatError/Code/invalidArgument`` for an unknown section.
    @discardableResult
    public func play(section: String) throws -> MediaTime {
        try transition(to: section, quantization: .immediate, style: .cut)
    }

    /// Whether the music is paused (by ``pause()``, or by the audio session: an
    /// interruption or the headphones going away), to go on with ``resume()``.
    public var isPaused: Bool { locked { suspended != nil } }

    /// Pauses the section heard now where it is (a ramp of one update step);
    /// stingers and a change not yet heard are dropped. Nothing when nothing plays.
    public func pause() {
        locked {
            guard let engine else { return }
            suspendLocked(engine: engine)
        }
    }

    /// Goes on with the section where ``pause()`` (or the session) left it,
    /// ramped in over one update step; its beats follow it. Nothing when not paused.
    public func resume() {
        engine?.session.playRequested(by: sessionPlayerID)
        locked {
            guard let engine else { return }
            resumeLocked(engine: engine)
        }
    }

    /// Changes to `section` on the next `quantization` boundary of the section heard
    /// now, by `style`; with `transitionSegment`, that file plays from the boundary
    /// (the old section leaving by `style`) and the new section starts, cut in, when it ends.
    /// A change asked for before an earlier one started replaces it.
    /// - Returns: the engine time at which the transition (segment, or section) starts.
    /// - Throws: ``BackbeatError/Code/invalidArgument`` for an unknown section; the
    ///   decoders' errors for a transition segment that cannot be opened.
    @discardableResult
    public func transition(
        to section: String, quantization: MusicQuantization = .bar, style: MusicTransitionStyle = .cut,
        via transitionSegment: AudioAsset? = nil
    ) throws -> MediaTime {
        guard let target = sections[section] else {
            throw BackbeatError(
                .invalidArgument, operation: "AdaptiveMusicPlayer.transition",
                reason: "no section named \"\(section)\" (have \(sectionNames.joined(separator: ", ")))")
        }
        let segmentFrames = try transitionSegment.map { asset -> Int64 in
            let info = try asset.schedulingInfo()
            return MediaTime(frames: info.frameCount, sampleRate: info.format.sampleRate).frames(
                atSampleRate: engine?.sampleRate ?? info.format.sampleRate)
        }
        engine?.session.playRequested(by: sessionPlayerID)
        return try locked {
            guard let engine else { throw BackbeatError(.engineShutDown, operation: "AdaptiveMusicPlayer.transition") }
            // A paused player started again by the game forgets where it was.
            suspended = nil
            interrupted = false
            let boundary = boundaryLocked(quantization, engine: engine)
            dropPendingLocked()
            // Gains act on the mix, which the output hears its latency later: ramps are placed in mix frames.
            let fadeFrames: Int64
            switch style {
            case .cut:
                fadeFrames = Int64(engine.updateInterval)
                cutLocked(generation: heard?.generation, at: boundary, engine: engine)
            case .crossfade(let d):
                fadeFrames = max(Int64(engine.updateInterval), d.frames(atSampleRate: engine.sampleRate))
                fadeOutLocked(
                    generation: heard?.generation, from: boundary - engine.latencyFrames, frames: fadeFrames,
                    equalPower: true)
            }
            var start = boundary
            if let transitionSegment, let segmentFrames {
                try startStreamLocked(
                    asset: transitionSegment, looping: .once, layer: nil, kind: .stinger,
                    at: boundary, fade: .constant(1), engine: engine)
                start = boundary + segmentFrames
            }
            generation += 1
            let fadeIn: Ramp =
                (transitionSegment == nil && style != .cut)
                ? Ramp(
                    from: 0, to: 1, start: start - engine.latencyFrames, end: start - engine.latencyFrames + fadeFrames,
                    shape: .equalPowerIn) : .constant(1)
            for stem in target.section.stems {
                try startStreamLocked(
                    asset: stem.asset, layer: stem.layer, kind: .section(generation), at: start, fade: fadeIn,
                    engine: engine)
            }
            pending = (section, start, generation)
            return MediaTime(frames: boundary, sampleRate: engine.sampleRate)
        }
    }

    /// Plays `asset` once on the next `quantization` boundary of the section
    /// heard now, over the music. Returns when it starts, in engine time.
    /// - Throws: the decoders' errors when the file cannot be opened.
    @discardableResult
    public func playStinger(_ asset: AudioAsset, quantization: MusicQuantization = .beat) throws -> MediaTime {
        _ = try asset.schedulingInfo()
        return try locked {
            guard let engine else { throw BackbeatError(.engineShutDown, operation: "AdaptiveMusicPlayer.playStinger") }
            // Right after play(section:), before the section is heard, on its beats.
            let boundary = boundaryLocked(quantization, engine: engine, orUpcoming: true)
            try startStreamLocked(
                asset: asset, looping: .once, layer: nil, kind: .stinger, at: boundary,
                fade: .constant(1), engine: engine)
            return MediaTime(frames: boundary, sampleRate: engine.sampleRate)
        }
    }

    /// The engine time of the next `quantization` boundary of the section heard
    /// now (what a game passes to `SoundEffect.play(at:)` to hit the beat).
    public func nextBoundary(_ quantization: MusicQuantization) -> MediaTime {
        locked {
            guard let engine else { return .zero }
            return MediaTime(frames: boundaryLocked(quantization, engine: engine), sampleRate: engine.sampleRate)
        }
    }

    /// Moves the section heard now to `time` from its start, every stem
    /// together (they stay sample-locked); the beats move with it.
    public func seek(to time: MediaTime) {
        locked {
            guard let engine, let now = heardNow(), let resolved = sections[now.name] else { return }
            let boundary = boundaryLocked(.immediate, engine: engine)
            let offset = min(max(0, time.frames(atSampleRate: engine.sampleRate)), resolved.frames)
            dropPendingLocked()
            cutLocked(generation: now.generation, at: boundary, engine: engine)
            generation += 1
            for stem in resolved.section.stems {
                try? startStreamLocked(
                    asset: stem.asset, layer: stem.layer, kind: .section(generation), at: boundary, fade: .constant(1),
                    engine: engine, startFrame: offset)
            }
            heard = nil
            pending = (now.name, boundary - offset, generation)
        }
    }

    /// Stops the music on the next update step (a short ramp).
    public func stop() {
        locked {
            guard let engine else { return }
            suspended = nil
            interrupted = false
            dropPendingLocked()
            let boundary = boundaryLocked(.immediate, engine: engine)
            cutLocked(generation: heard?.generation, at: boundary, engine: engine)
            heard = nil
        }
    }

    /// Fades everything heard (the section, a change under way, stingers) to
    /// silence over `duration` of engine time, from now, with the equal-power
    /// curve the other players' `fadeOut(duration:)` and bus fades use, then
    /// stops. A game's quit fade: music, players and buses fade as one.
    public func fadeOut(duration: MediaTime) {
        locked {
            guard let engine else { return }
            let start = engine.currentFrameLocked
            let frames = max(1, duration.frames(atSampleRate: engine.sampleRate))
            suspended = nil
            interrupted = false
            for p in active where p.retireAt.map({ $0 > start + frames }) ?? true {
                let from = p.fade.value(at: start)
                p.fade = Ramp(from: from, to: 0, start: start, end: start + frames, shape: .equalPowerOut)
                p.retireAt = start + frames + 1
            }
            heard = nil
            pending = nil
        }
    }

    /// Sets a layer's gain (0...1, clamped; NaN ignored), reached over `duration` of engine time.
    /// Stems of layers never set play at 1.
    public func setLayerGain(_ layer: String, to gain: Float, duration: MediaTime = .zero) {
        guard !gain.isNaN else { return }
        locked {
            guard let engine else { return }
            setLayerGainLocked(layer, to: min(max(gain, 0), 1), duration: duration, engine: engine)
        }
    }

    /// Drives a layer's gain from `parameter` through `curve` (clamped to 0...1)
    /// at every engine update step, ramped across the step, for as long as the
    /// player lives. It takes over from ``setLayerGain(_:to:duration:)`` for that layer.
    public func bindLayer(_ layer: String, to parameter: GameParameter, curve: ParameterCurve = .linear) {
        let range = parameter.range
        bind(parameter) { player, value, now, interval in
            let gain = min(max(curve.output(for: value, in: range), 0), 1)
            let from = player.layerGains[layer]?.value(at: now) ?? 1
            player.layerGains[layer] = Ramp(from: from, to: gain, start: now, end: now + interval)
        }
    }

    /// Drives the player's volume from `parameter` through `curve` (clamped to 0...1) at every engine update step.
    public func bindVolume(to parameter: GameParameter, curve: ParameterCurve = .linear) {
        let range = parameter.range
        bind(parameter) { player, value, _, _ in
            player.volumeValue = min(max(curve.output(for: value, in: range), 0), 1)
        }
    }

    private func bind(
        _ parameter: GameParameter,
        _ apply: @escaping (AdaptiveMusicPlayer, Float, _ now: Int64, _ interval: Int64) -> Void
    ) {
        locked {
            guard let engine else { return }
            let interval = Int64(engine.updateInterval)
            parameter.driveLocked { [weak self, weak engine] value in
                guard let self, let engine else { return false }
                apply(self, value, engine.currentFrameLocked, interval)
                return true
            }
        }
    }

    /// A layer's gain now.
    public func layerGain(_ layer: String) -> Float {
        locked { layerGains[layer]?.value(at: engine?.currentFrameLocked ?? 0) ?? 1 }
    }

    // MARK: Under the lock

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        guard let engine else { return try body() }
        defer { engine.deliverPendingEvents() }
        return try engine.withLock(body)
    }

    package func setLayerGainLocked(_ layer: String, to gain: Float, duration: MediaTime, engine: AudioEngine) {
        let now = engine.currentFrameLocked
        let from = layerGains[layer]?.value(at: now) ?? 1
        let frames = max(0, duration.frames(atSampleRate: engine.sampleRate))
        layerGains[layer] = frames == 0 ? .constant(gain) : Ramp(from: from, to: gain, start: now, end: now + frames)
    }

    /// The section heard at the engine's current frame.
    private func heardNow() -> (name: String, start: Int64, generation: UInt64)? {
        if let pending, let engine, engine.currentFrameLocked >= pending.start { return pending }
        return heard
    }

    /// The first engine frame a stream can start on exactly: the next update step, plus the output's latency
    /// (and a step's margin on a real-time output, whose clock runs between steps).
    private func earliestLocked(_ engine: AudioEngine) -> Int64 {
        let interval = Int64(engine.updateInterval)
        let now = engine.currentFrameLocked
        var next = (now + interval - 1) / interval * interval
        if !engine.device.isLoopback { next += 2 * interval }
        return next + engine.latencyFrames
    }

    /// With `orUpcoming`, a section scheduled but not heard yet counts when
    /// none is heard: its first frame is its first beat and bar.
    private func boundaryLocked(
        _ quantization: MusicQuantization, engine: AudioEngine, orUpcoming: Bool = false
    ) -> Int64 {
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

    private func dropPendingLocked() {
        if let pending {
            for p in active {
                if case .section(let g) = p.kind, g == pending.generation { p.retireAt = 0 }
            }
            // The old section was to fade on the dropped boundary: it plays on.
            if let engine, engine.currentFrameLocked >= pending.start {
                heard = pending
            } else if let heard {
                for p in active {
                    if case .section(let g) = p.kind, g == heard.generation { p.fade = .constant(1); p.retireAt = nil }
                }
            }
            self.pending = nil
        }
        retireLocked()
    }

    /// Cuts a section on output frame `boundary`: full level up to it, then a
    /// ramp over one update step (the first step whose mix is heard from the boundary on).
    private func cutLocked(generation: UInt64?, at boundary: Int64, engine: AudioEngine) {
        let interval = Int64(engine.updateInterval)
        let mix = max(0, boundary - engine.latencyFrames)
        let step = (mix + interval - 1) / interval * interval
        fadeOutLocked(generation: generation, from: step, frames: interval, equalPower: false)
    }

    private func fadeOutLocked(generation: UInt64?, from start: Int64, frames: Int64, equalPower: Bool) {
        guard let generation else { return }
        for p in active {
            guard case .section(let g) = p.kind, g == generation else { continue }
            p.fade = Ramp(
                from: 1, to: 0, start: start, end: start + frames, shape: equalPower ? .equalPowerOut : .linear)
            p.retireAt = start + frames + 1
        }
    }

    private func startStreamLocked(
        asset: AudioAsset, looping: Looping? = nil, layer: String?, kind: Playing.Kind, at start: Int64, fade: Ramp,
        engine: AudioEngine,
        startFrame: Int64 = 0
    ) throws {
        let stream = try spare.popLast() ?? AudioStream(engine: engine)
        let playing = Playing(stream: stream, layer: layer, kind: kind, fade: fade)
        stream.gain = { [weak self, unowned playing] frame in
            guard let self else { return 0 }
            let layerGain = playing.layer.flatMap { self.layerGains[$0]?.value(at: frame) } ?? 1
            let shutdown = self.shutdownFade?.value(at: frame) ?? 1
            return self.volumeValue * playing.fade.value(at: frame) * layerGain * shutdown
        }
        stream.isMuted = sessionMuted
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

    private func retireLocked() {
        guard let engine else { return }
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
    private func suspendLocked(engine: AudioEngine) -> Bool {
        guard suspended == nil else { return false }
        let boundary = boundaryLocked(.immediate, engine: engine)
        let scheduled = pending
        dropPendingLocked()
        // A section asked for but not heard yet is paused at its start.
        guard let now = heard ?? scheduled, let section = sections[now.name] else { return false }
        suspended = (now.name, Self.position(elapsed: boundary - now.start, in: section))
        cutLocked(generation: now.generation, at: boundary, engine: engine)
        let interval = Int64(engine.updateInterval)
        let step = (max(0, boundary - engine.latencyFrames) + interval - 1) / interval * interval
        for p in active where p.retireAt == nil {
            if case .stinger = p.kind {
                p.fade = Ramp(from: 1, to: 0, start: step, end: step + interval)
                p.retireAt = step + interval + 1
            }
        }
        heard = nil
        return true
    }

    /// Starts the paused section again from where it was, as a seek does, ramped in over one update step.
    private func resumeLocked(engine: AudioEngine) {
        guard let (name, position) = suspended, let section = sections[name] else { return }
        suspended = nil
        interrupted = false
        let boundary = boundaryLocked(.immediate, engine: engine)
        let interval = Int64(engine.updateInterval)
        let step = (max(0, boundary - engine.latencyFrames) + interval - 1) / interval * interval
        generation += 1
        for stem in section.section.stems {
            try? startStreamLocked(
                asset: stem.asset, layer: stem.layer, kind: .section(generation), at: boundary,
                fade: Ramp(from: 0, to: 1, start: step, end: step + interval), engine: engine, startFrame: position)
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

    // MARK: Session and shutdown (under the engine lock)

    /// The game's adaptive music: muted by the silent switch and other audio like ``QueuePlayer``.
    package var isGameMusic: Bool { true }

    package func sessionInterrupt(reason: String) -> Bool {
        guard let engine, suspendLocked(engine: engine) else { return false }
        interrupted = true
        return true
    }

    package func sessionPause(reason: String) {
        guard let engine else { return }
        suspendLocked(engine: engine)
        interrupted = false
    }

    package func sessionResume(reason: String) {
        guard interrupted, let engine else { return }
        resumeLocked(engine: engine)
    }

    package func sessionKeepPaused(reason: String) { interrupted = false }

    package func setGameMusicMuted(_ muted: Bool) {
        sessionMuted = muted
        for p in active { p.stream.isMuted = muted }
    }

    /// Held back arrives through ``setGameMusicMuted(_:)``, with the silent switch.
    package func setHeldBack(_ heldBack: Bool) {}

    package func beginShutdownFade(at frame: Int64, frames: Int64) {
        shutdownFade = Ramp(from: 1, to: 0, start: frame, end: frame + frames, shape: .equalPowerOut)
    }

    /// It reports no events.
    package func finishEventStreams() {}

    package var isAudible: Bool { engine != nil && suspended == nil && (heard != nil || pending != nil) }

    private func update(at frame: Int64) {
        if let pending, frame >= pending.start {
            heard = pending
            self.pending = nil
        }
        retireLocked()
    }
}

/// A gain ramp in engine frames.
struct Ramp: Sendable {
    enum Shape { case linear, equalPowerIn, equalPowerOut }
    var from: Float
    var to: Float
    var start: Int64
    var end: Int64
    var shape: Shape = .linear

    static func constant(_ value: Float) -> Ramp { Ramp(from: value, to: value, start: 0, end: 0) }

    func value(at frame: Int64) -> Float {
        if frame <= start { return from }
        if frame >= end { return to }
        let t = Float(frame - start) / Float(end - start)
        switch shape {
        case .linear: return from + (to - from) * t
        case .equalPowerIn: return from + (to - from) * sin(t * .pi / 2)
        case .equalPowerOut: return to + (from - to) * cos(t * .pi / 2)
        }
    }
}
