import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatSession
import BackbeatSupport

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
///
/// Like ``MusicPlayer`` and ``QueuePlayer`` it has a volume with fades,
/// meters, events (``Event``), and it fades out when the engine shuts down.
public final class AdaptiveMusicPlayer: @unchecked Sendable, SessionMusicPlayer, EngineMusicPlaying {
    // @unchecked: every mutable member is touched only under the engine lock.

    /// What the player is doing.
    public enum PlaybackState: Sendable, Equatable {
        /// Nothing plays or is scheduled (before the first section, after ``stop()`` or ``fadeOut(duration:)``).
        case stopped
        /// A section plays, or is scheduled to start.
        case playing
        /// Paused by ``pause()`` or by the headphones going away; ``resume()`` goes on.
        case paused
        /// Paused by an audio-session interruption; it resumes when the interruption ends, if asked to.
        case interrupted
    }

    /// Something the player did; each is posted once, in order.
    public enum Event: Sendable, Equatable {
        /// ``playbackState`` changed.
        case playbackStateDidChange(PlaybackState)
        /// ``currentSection`` changed: a section's first frame was reached (on
        /// the engine's update step), or the music stopped or paused (nil).
        case sectionDidChange(String?)
        /// ``volume`` changed (the target of a fade, when it starts). A volume
        /// bound to a game parameter (``bindVolume(to:curve:)``) posts none.
        case volumeDidChange(Float)
    }

    /// A section with what scheduling needs, in engine frames.
    struct Resolved {
        let section: MusicSection
        let tempo: TempoMap?
        /// The first stem's length.
        let frames: Int64
        /// The loop region (intro length, region length) and the passes (nil: forever).
        let loop: (intro: Int64, length: Int64, passes: Int?)?
    }

    /// One stream playing: a section's stem, or a stinger (or transition segment).
    final class Playing {
        enum Kind {
            case section(UInt64)
            case stinger
        }
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

    package let core: PlayerCore<Event>
    let sections: [String: Resolved]
    var active: [Playing] = []
    /// Streams done playing, kept to play again (the core owns and closes every stream).
    var spare: [AudioStream] = []
    /// The section heard now (its start is the frame its first frame was heard), and one scheduled to follow.
    var heard: (name: String, start: Int64, generation: UInt64)?
    var pending: (name: String, start: Int64, generation: UInt64)?
    var generation: UInt64 = 0
    var layerGains: [String: Ramp] = [:]
    private var component: Component?
    /// Where a paused player resumes: the section and the file frame its stems continue from.
    var suspended: (name: String, position: Int64)?
    /// Paused by an interruption (it resumes when the session says so), not by a route change or the game.
    var interrupted = false
    /// The state and section last reported in events.
    var reported: (state: PlaybackState, section: String?) = (.stopped, nil)
    /// The player's id in the capture that last saw it (AdaptiveMusicPlayer+Capture.swift).
    var captureTag = CaptureTag()

    /// A player of `sections` on `engine`; nothing plays until ``play(section:)``.
    /// Each stem is opened once now, to learn its length, rate and loop points.
    ///
    /// - Parameters:
    ///   - engine: The engine it plays on, on its music bus.
    ///   - sections: The sections, each with a name of its own.
    /// - Throws: ``BackbeatError/Code/invalidArgument`` for no sections, a
    ///   section without stems, or two sections of one name; the decoders'
    ///   errors for a stem that cannot be opened; `.invalidLoopPoints` for loop points set past a stem's end.
    public init(engine: AudioEngine, sections: [MusicSection]) throws {
        guard !sections.isEmpty else {
            throw BackbeatError(.invalidArgument, operation: "AdaptiveMusicPlayer", reason: "no sections")
        }
        MusicAssetFingerprints.prefetch(sections.flatMap { $0.stems.map(\.asset) }, engine: engine)
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
        core = PlayerCore(
            engine: engine, streams: [], hearsEveryStream: true, generatesOnRequest: false,
            volumeEvent: { .volumeDidChange($0) })
        let component = Component()
        self.component = component
        engine.withLock {
            component.player = self
            engine.registerLocked(component)
            engine.registerMusicPlayerLocked(self)
            engine.addTelemetryContributorLocked(self)
            _ = captureIDLocked()
        }
    }

    /// The engine calls the player through this (the player itself stays out of the engine's list).
    private final class Component: EngineComponent {
        weak var player: AdaptiveMusicPlayer?
        func update(at frame: Int64) throws { player?.update(at: frame) }
    }

    var engine: AudioEngine? { core.engine }

    // MARK: Sections

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
    ///
    /// - Parameter section: The section's name.
    /// - Returns: Its tempo; nil for a section without one, or an unknown name.
    public func tempo(of section: String) -> TempoMap? { sections[section]?.tempo }

    /// What the player is doing.
    public var playbackState: PlaybackState { locked { playbackStateLocked } }

    // MARK: Transport

    /// Starts `section` as soon as possible (any section heard stops, cut).
    ///
    /// - Parameter section: The section's name.
    /// - Returns: The engine time it starts at.
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
        changing {
            record(.musicPause)
            guard let engine else { return }
            suspendLocked(engine: engine)
        }
    }

    /// Goes on with the section where ``pause()`` (or the session) left it,
    /// ramped in over one update step; its beats follow it. Nothing when not paused.
    public func resume() {
        engine?.session.playRequested(by: sessionPlayerID)
        changing {
            record(.adaptiveResume)
            guard let engine else { return }
            resumeLocked(engine: engine)
        }
    }

    /// Changes to `section` on the next `quantization` boundary of the section heard
    /// now, by `style`; with `transitionSegment`, that file plays from the boundary
    /// (the old section leaving by `style`) and the new section starts, cut in, when it ends.
    /// A change asked for before an earlier one started replaces it.
    ///
    /// - Parameters:
    ///   - section: The name of the section to change to.
    ///   - quantization: Which boundary of the section heard now the change starts on; the next bar by default.
    ///   - style: How the old section leaves and the new one comes in; a cut by default.
    ///   - transitionSegment: A file played once between the two sections; nil for none.
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
        MusicAssetFingerprints.prefetch(transitionSegment.map { [$0] } ?? [], engine: engine)
        engine?.session.playRequested(by: sessionPlayerID)
        return try changing {
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
                ? Ramp(from: 0, to: 1, startFrame: start - engine.latencyFrames, frames: fadeFrames, curve: .equalPower)
                : .constant(1)
            for stem in target.section.stems {
                try startStreamLocked(
                    asset: stem.asset, layer: stem.layer, kind: .section(generation), at: start, fade: fadeIn,
                    engine: engine)
            }
            pending = (section, start, generation)
            recordTransitionLocked(to: section, quantization: quantization, style: style, via: transitionSegment)
            return MediaTime(frames: boundary, sampleRate: engine.sampleRate)
        }
    }

    /// Plays `asset` once on the next `quantization` boundary of the section
    /// heard now, over the music.
    ///
    /// - Parameters:
    ///   - asset: The stinger's file.
    ///   - quantization: Which boundary it starts on; the next beat by default.
    /// - Returns: The engine time it starts at.
    /// - Throws: the decoders' errors when the file cannot be opened.
    @discardableResult
    public func playStinger(_ asset: AudioAsset, quantization: MusicQuantization = .beat) throws -> MediaTime {
        _ = try asset.schedulingInfo()
        MusicAssetFingerprints.prefetch([asset], engine: engine)
        return try changing {
            guard let engine else { throw BackbeatError(.engineShutDown, operation: "AdaptiveMusicPlayer.playStinger") }
            // Right after play(section:), before the section is heard, on its beats.
            let boundary = boundaryLocked(quantization, engine: engine, orUpcoming: true)
            try startStreamLocked(
                asset: asset, looping: .once, layer: nil, kind: .stinger, at: boundary,
                fade: .constant(1), engine: engine)
            recordStingerLocked(asset, quantization: quantization)
            return MediaTime(frames: boundary, sampleRate: engine.sampleRate)
        }
    }

    /// The engine time of the next `quantization` boundary of the section heard
    /// now (what a game passes to `SoundEffect.play(at:)` to hit the beat).
    ///
    /// - Parameter quantization: Which boundary.
    /// - Returns: Its engine time; the earliest exact start when nothing plays or the section has no tempo.
    public func nextBoundary(_ quantization: MusicQuantization) -> MediaTime {
        locked {
            guard let engine else { return .zero }
            return MediaTime(frames: boundaryLocked(quantization, engine: engine), sampleRate: engine.sampleRate)
        }
    }

    /// Moves the section heard now to `time` from its start, every stem
    /// together (they stay sample-locked); the beats move with it.
    ///
    /// - Parameter time: Where to go in the section, clamped to its length.
    public func seek(to time: MediaTime) {
        changing {
            record(.musicSeek) { EngineCaptureValues.encode(time, into: &$0) }
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
        changing {
            record(.musicStop)
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
    /// Unlike theirs, the player can play again at once.
    ///
    /// - Parameter duration: How long the fade takes, in engine time.
    public func fadeOut(duration: MediaTime) {
        changing {
            record(.musicFadeOut) { EngineCaptureValues.encode(duration, into: &$0) }
            guard let engine else { return }
            let start = engine.currentFrameLocked
            let frames = max(1, duration.frames(atSampleRate: engine.sampleRate))
            suspended = nil
            interrupted = false
            for p in active where p.retireAt.map({ $0 > start + frames }) ?? true {
                let from = p.fade.value(at: start)
                p.fade = Ramp(from: from, to: 0, startFrame: start, frames: frames, curve: .equalPower)
                p.retireAt = start + frames + 1
            }
            heard = nil
            pending = nil
        }
    }

    // MARK: Under the lock

    func locked<T>(_ body: () throws -> T) rethrows -> T { try core.locked(body) }

    /// ``locked(_:)`` for what changes the player: the events its changes call for are posted with it.
    func changing<T>(_ body: () throws -> T) rethrows -> T {
        try core.locked {
            defer { reportLocked() }
            return try body()
        }
    }

    func update(at frame: Int64) {
        #if DEBUG
        engine?.preconditionLocked()
        #endif
        if let pending, frame >= pending.start {
            heard = pending
            self.pending = nil
        }
        retireLocked()
        reportLocked()
    }
}
