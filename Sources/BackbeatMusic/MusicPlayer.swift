import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatSession
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The application music player, like `MPMusicPlayerController.applicationMusicPlayer`:
/// songs (``MusicItem``s, such as the media library's items) played in the game's own process, with
/// repeat and shuffle, seeking and skipping, and a fade-out when the engine
/// shuts down.
///
/// Each engine has one: ``application(for:)``. It streams like ``QueuePlayer``
/// (gapless, fixed memory) on ``AudioEngine/musicBus``, but unlike the game's
/// own music it ignores the silent switch, as the iPod did. Like the game's music,
/// it is held back (muted, time running) in an ambient session while other audio plays.
///
/// ```swift
/// let player = try MusicPlayer.application(for: engine)
/// try player.setQueue(query: .songs(in: library))   // BackbeatLibrary
/// player.shuffleMode = .songs
/// player.beginGeneratingPlaybackNotifications()
/// player.observe { print($0) }
/// player.play()
/// ```
///
/// State changes are events: ``play()`` and ``pause()`` return at once, and
/// ``Event/playbackStateDidChange(_:)`` follows. Events are
/// generated only between ``beginGeneratingPlaybackNotifications()`` and
/// ``endGeneratingPlaybackNotifications()``; they reach every handler and
/// every ``events()`` stream, once each, in order.
public final class MusicPlayer: @unchecked Sendable, MusicPlaying, SessionMusicPlayer, EngineMusicPlaying {
    // @unchecked: every mutable member is touched only under the engine lock.

    /// What the player is doing.
    public enum PlaybackState: Sendable, Equatable {
        /// Not playing; play starts the now-playing item from its beginning.
        case stopped
        /// Playing.
        case playing
        /// Paused where it was.
        case paused
        /// Paused by an audio-session interruption; resumes when it ends, if asked to.
        case interrupted
        /// Scanning forward (``beginSeekingForward()``).
        case seekingForward
        /// Scanning backward (``beginSeekingBackward()``).
        case seekingBackward
    }

    /// How the queue repeats.
    public enum RepeatMode: String, Sendable, Hashable, CaseIterable, Codable {
        /// Play the queue once.
        case none
        /// Play the now-playing item over and over.
        case one
        /// Play the queue over and over.
        case all
    }

    /// How the queue is shuffled.
    public enum ShuffleMode: String, Sendable, Hashable, CaseIterable, Codable {
        /// In queue order.
        case off
        /// Every song once per cycle, in random order.
        case songs
        /// Albums in random order, each album's songs in queue order.
        case albums
    }

    /// A playback event (Apple's player posts these as notifications).
    public enum Event: Sendable, Equatable {
        /// ``playbackState`` changed.
        case playbackStateDidChange(PlaybackState)
        /// ``nowPlayingItem`` changed.
        case nowPlayingItemDidChange((any MusicItem)?)
        /// ``volume`` changed (the target of a fade, when it starts).
        case volumeDidChange(Float)

        /// The same change: the same state, the same item (see ``MusicItem``) or the same volume.
        ///
        /// - Parameters:
        ///   - a: One event.
        ///   - b: The other.
        /// - Returns: Whether they report the same change.
        public static func == (a: Event, b: Event) -> Bool {
            switch (a, b) {
            case (.playbackStateDidChange(let x), .playbackStateDidChange(let y)): x == y
            case (.nowPlayingItemDidChange(let x), .nowPlayingItemDidChange(let y)): isSameItem(x, y)
            case (.volumeDidChange(let x), .volumeDidChange(let y)): x == y
            default: false
            }
        }
    }

    package let core: PlayerCore<Event>
    package var isGameMusic: Bool { false }

    private var queue: [any MusicItem] = []
    private var history: (any MusicPlayHistory)?
    /// The queue (keys are indices into `queue`), its order and the plan.
    var machine = QueueStateMachine<Int>(consumesPlayed: false, planDepth: 1, planLimit: 4)
    var state: PlaybackState = .stopped
    /// Seeking: the next frame a slice ends and the jump per slice.
    private var seekJumpFrame: Int64 = 0
    private var stateBeforeSeeking: PlaybackState = .playing
    /// The player's id in the capture that last saw it (MusicPlayer+Capture.swift).
    var captureTag = CaptureTag()

    /// Engine frames a scanning slice plays, and stream frames each slice jumps.
    static let seekSliceSeconds = 0.2
    static let seekForwardJumpSeconds = 0.6
    static let seekBackwardJumpSeconds = -1.0

    /// The application music player of `engine` (made on first use).
    ///
    /// - Parameter engine: The engine it plays on.
    /// - Returns: The engine's one application player.
    /// - Throws: ``BackbeatError/Code/engineShutDown``, or
    ///   ``BackbeatError/Code/openAL`` when the device has no source left.
    public static func application(for engine: AudioEngine) throws -> MusicPlayer {
        try engine.withLock {
            if let existing = engine.liveMusicPlayersLocked.lazy.compactMap({ $0 as? MusicPlayer }).first {
                return existing
            }
            let player = try MusicPlayer(engine: engine)
            engine.registerMusicPlayerLocked(player)
            engine.addTelemetryContributorLocked(player)
            _ = player.captureIDLocked()
            return player
        }
    }

    private init(engine: AudioEngine) throws {
        try engine.checkUsable("MusicPlayer.application")
        let stream = try AudioStream(engine: engine)
        core = PlayerCore(
            engine: engine, streams: [stream], generatesOnRequest: true, volumeEvent: { .volumeDidChange($0) })
        // Weak: the engine may run an update while the player is being released.
        stream.gain = { [weak self] frame in self?.core.level.gain(at: frame) ?? 0 }
        stream.onEvent = { [weak self] event in self?.handle(event) }
        stream.onPlanExhausted = { [weak self] in
            guard let self else { return }
            self.perform(self.machine.extendPlan())
        }
        stream.onUpdate = { [weak self] frame in self?.scan(at: frame) }
        stream.onUpdateDue = { [weak self] _ in
            guard let self, self.isSeeking else { return nil }
            return self.seekJumpFrame
        }
    }

    private var engine: AudioEngine? { core.engine }
    private var stream: AudioStream { core.stream }

    private func locked<T>(_ body: () throws -> T) rethrows -> T { try core.locked(body) }

    // MARK: Queue

    /// Plays `items`, in order (or shuffled). The player stops; the first
    /// item becomes the now-playing item. (`BackbeatLibrary` adds queues from
    /// a query or a collection, with play counts.)
    ///
    /// - Parameter items: The songs, in queue order.
    public func setQueue(items: [any MusicItem]) {
        setQueue(items: items, history: nil)
    }

    /// ``setQueue(items:)``, recording plays and skips in `history`.
    package func setQueue(items: [any MusicItem], history: (any MusicPlayHistory)?) {
        MusicAssetFingerprints.prefetch(items.map(\.asset), engine: engine)
        locked {
            recordQueueLocked(items)
            let before = nowPlayingLocked
            queue = items
            self.history = history
            perform(machine.setQueue(Array(items.indices), albums: items.map(\.albumTitle)))
            setState(.stopped)
            nowPlayingMayHaveChanged(from: before)
        }
    }

    /// The item playing, paused or about to play; nil with an empty queue.
    public var nowPlayingItem: (any MusicItem)? { locked { nowPlayingLocked } }

    /// The index of ``nowPlayingItem`` in the queue as set (not the shuffled order); nil with an empty queue.
    public var indexOfNowPlayingItem: Int? { locked { machine.currentKey } }

    var nowPlayingLocked: (any MusicItem)? {
        #if DEBUG
        engine?.preconditionLocked()
        #endif
        return machine.currentKey.map { queue[$0] }
    }

    /// Repeat mode; default ``RepeatMode/none``.
    public var repeatMode: RepeatMode {
        get { locked { machine.repeatMode } }
        set {
            locked {
                perform(machine.setRepeatMode(newValue))
                record(.musicRepeatMode) { $0.append(newValue.rawValue) }
            }
        }
    }

    /// Shuffle mode; default ``ShuffleMode/off``. Changing it keeps the
    /// now-playing item and reorders the rest.
    public var shuffleMode: ShuffleMode {
        get { locked { machine.shuffleMode } }
        set {
            locked {
                perform(machine.setShuffleMode(newValue))
                record(.musicShuffleMode) { $0.append(newValue.rawValue) }
            }
        }
    }

    /// Seeds the shuffle, so an order can be reproduced (tests, replays).
    ///
    /// - Parameter seed: The seed; the same seed gives the same order.
    public func seedShuffle(_ seed: UInt64) {
        locked {
            perform(machine.seedShuffle(seed))
            record(.musicSeedShuffle) { $0.append(seed) }
        }
    }

    // MARK: Transport

    /// Opens the now-playing item and decodes its first buffers, so ``play()`` starts at once.
    ///
    /// - Throws: ``BackbeatError/Code/emptyQueue`` when the queue is empty.
    public func prepareToPlay() throws {
        try locked {
            guard machine.position != nil else {
                throw BackbeatError(.emptyQueue, operation: "MusicPlayer.prepareToPlay", reason: "set a queue first")
            }
            if machine.current == nil { perform(machine.start(at: 0)) }
            record(.musicPrepare)
        }
    }

    /// Plays from where it is. With an empty queue it does nothing (the state
    /// stays ``PlaybackState/stopped``; ``prepareToPlay()`` throws instead).
    public func play() {
        // An interruption that began and never ended must not wedge the game:
        // asking to play ends it (the session decides; it is a no-op otherwise).
        engine?.session.playRequested(by: core.sessionPlayerID)
        locked {
            record(.musicPlay)
            guard machine.position != nil else { return }
            if machine.current == nil { perform(machine.start(at: 0)) }
            stream.setPlaying(true)
            setState(.playing)
        }
    }

    /// Pauses where it is.
    public func pause() {
        locked {
            record(.musicPause)
            guard state != .stopped, state != .paused else { return }
            stream.setPlaying(false)
            setState(.paused)
        }
    }

    /// Stops; the now-playing item stays, and the next ``play()`` starts it from its beginning.
    public func stop() {
        locked {
            record(.musicStop)
            guard state != .stopped else { return }
            perform(machine.stop())
            setState(.stopped)
        }
    }

    /// What the player is doing.
    public var playbackState: PlaybackState { locked { state } }

    /// The position in the now-playing item, in frames of the engine's rate.
    public var currentPlaybackTime: MediaTime {
        locked {
            let rate = stream.feed.sampleRate
            return MediaTime(frames: core.frame(in: machine.current) ?? 0, sampleRate: rate)
        }
    }

    /// Moves to `time` in the now-playing item, sample-accurately: below zero
    /// clamps to zero; at or beyond the item's end, the item ends and the queue
    /// moves on as if it had played through. Nothing happens on an empty queue.
    ///
    /// - Parameter time: The position in the now-playing item.
    public func seek(to time: MediaTime) {
        locked {
            record(.musicSeek) { EngineCaptureValues.encode(time, into: &$0) }
            guard machine.position != nil else { return }
            // The conversion saturates, so a huge time seeks to the end, never traps.
            perform(machine.start(at: max(0, time.frames(atSampleRate: stream.feed.sampleRate))))
        }
    }

    /// Scans forward audibly: short slices of the song, skipping ahead (about 4× speed) until ``endSeeking()``.
    public func beginSeekingForward() { beginSeeking(.seekingForward) }

    /// Scans backward audibly: short slices, each further back, until ``endSeeking()`` or the item's start.
    public func beginSeekingBackward() { beginSeeking(.seekingBackward) }

    private func beginSeeking(_ direction: PlaybackState) {
        locked {
            record(.musicBeginSeeking) { $0.append(direction == .seekingForward) }
            guard let engine, machine.position != nil, state != direction else { return }
            if !isSeeking { stateBeforeSeeking = state == .playing ? .playing : .paused }
            if machine.current == nil { perform(machine.start(at: 0)) }
            stream.setPlaying(true)
            seekJumpFrame = engine.currentFrameLocked + Int64(Self.seekSliceSeconds * Double(engine.sampleRate))
            setState(direction)
        }
    }

    /// Ends scanning and returns to playing (or paused, if it was paused).
    public func endSeeking() {
        locked {
            record(.musicEndSeeking)
            guard isSeeking else { return }
            if stateBeforeSeeking != .playing { stream.setPlaying(false) }
            setState(stateBeforeSeeking)
        }
    }

    /// Moves to the next item (counted as a skip). At the end of the queue
    /// without repeat, the player stops at the first item.
    public func skipToNextItem() {
        locked {
            record(.musicSkipNext)
            guard let skipped = nowPlayingLocked else { return }
            recordSkip(of: skipped)
            let before = nowPlayingLocked
            perform(machine.advance(skipping: true, reusePlan: false, load: state != .stopped))
            if machine.current == nil { setState(.stopped) }
            nowPlayingMayHaveChanged(from: before)
        }
    }

    /// Moves to the previous item, or restarts the now-playing item when more than 3 s in.
    public func skipToPreviousItem() {
        locked {
            record(.musicSkipPrevious)
            guard machine.position != nil else { return }
            if let frame = core.frame(in: machine.current), frame > Int64(3 * stream.feed.sampleRate) {
                perform(machine.start(at: 0))
                return
            }
            let before = nowPlayingLocked
            perform(machine.previous(load: state != .stopped))
            nowPlayingMayHaveChanged(from: before)
        }
    }

    /// Restarts the now-playing item.
    public func skipToBeginning() {
        locked {
            record(.musicSkipToBeginning)
            if machine.position != nil { perform(machine.start(at: 0)) }
        }
    }

    // MARK: Notifications

    /// Starts generating notifications (calls nest: each needs an ``endGeneratingPlaybackNotifications()``).
    public func beginGeneratingPlaybackNotifications() { locked { core.beginGenerating() } }

    /// Stops generating notifications once every begin has its end.
    public func endGeneratingPlaybackNotifications() { locked { core.endGenerating() } }

    /// Calls `handler` with each event until the returned token is cancelled,
    /// outside the engine lock, where the engine delivers its own events.
    ///
    /// - Parameter handler: Called with each event, in order.
    /// - Returns: The token that ends the observation when cancelled.
    @discardableResult
    public func observe(_ handler: @escaping @Sendable (Event) -> Void) -> ObservationToken { core.observe(handler) }

    /// A new stream of events from now on; it ends when the engine shuts down.
    /// It keeps the newest 1,024 events its consumer has not read.
    public func events() -> AsyncStream<Event> { core.events() }

    // MARK: Volume and meters

    /// The player's volume, 0...1 (clamped; NaN ignored); setting it cancels a fade.
    public var volume: Float {
        get { core.volume }
        set { locked { applyVolumeLocked(newValue) } }
    }

    /// Fades the volume to `target` over `duration` of engine time.
    ///
    /// - Parameters:
    ///   - target: The volume to reach, 0...1 (clamped; NaN ignored).
    ///   - duration: How long the fade takes, in engine time.
    ///   - curve: The fade's shape; equal-power by default.
    public func fade(to target: Float, duration: MediaTime, curve: FadeCurve = .equalPower) {
        locked { applyFadeLocked(to: target, duration: duration, curve: curve) }
    }

    /// Fades to silence, equal-power, over `duration`: what engine shutdown
    /// does. The player keeps its state; the fade lasts until shutdown.
    ///
    /// - Parameter duration: How long the fade takes, in engine time; 1 s by default.
    public func fadeOut(duration: MediaTime = MediaTime(seconds: 1)) { locked { applyFadeOutLocked(duration) } }

    /// Whether ``updateMeters()`` measures levels. Default false.
    public var isMeteringEnabled: Bool {
        get { core.isMeteringEnabled }
        set { core.isMeteringEnabled = newValue }
    }

    /// Refreshes the meters from the audio played since the last refresh (after the player's volume).
    public func updateMeters() { core.updateMeters() }

    /// Average power of a channel in dB at the last ``updateMeters()``; -160 is silence, 0 full scale.
    ///
    /// - Parameter channel: 0 for left, 1 for right; any other channel reads -160.
    /// - Returns: The average power in dB.
    public func averagePower(forChannel channel: Int) -> Float { core.averagePower(forChannel: channel) }

    /// Peak power of a channel in dB at the last ``updateMeters()``.
    ///
    /// - Parameter channel: 0 for left, 1 for right; any other channel reads -160.
    /// - Returns: The peak power in dB.
    public func peakPower(forChannel channel: Int) -> Float { core.peakPower(forChannel: channel) }

    /// Underruns so far (always zero on offline outputs).
    public var underrunCount: Int { core.underrunCount }

    // MARK: Internals (under the engine lock)

    private var isSeeking: Bool { state == .seekingForward || state == .seekingBackward }
    private var isPlayingOrSeeking: Bool { state == .playing || isSeeking }

    private func perform(_ action: QueueStateMachine<Int>.Action) {
        core.perform(action, play: isPlayingOrSeeking) { queue[$0].asset }
    }

    private func setState(_ new: PlaybackState) {
        guard new != state else { return }
        state = new
        core.post(.playbackStateDidChange(new))
    }

    private func nowPlayingMayHaveChanged(from before: (any MusicItem)?) {
        if !isSameItem(before, nowPlayingLocked) { core.post(.nowPlayingItemDidChange(nowPlayingLocked)) }
    }

    private func handle(_ event: StreamEvent) {
        let before = nowPlayingLocked
        switch event {
        case .deviceReplaced(let at):
            // Carry on from where the lost device was heard, or, when nothing
            // was heard there since the stream last (re)started (it stayed
            // paused on a stand-in device), from where it (re)started.
            guard let current = machine.current else { return }
            perform(machine.start(at: at.flatMap { $0.entry == current.id ? $0.frame : nil } ?? current.startFrame))
        case .started, .underrun:
            return
        case .ended(let entry):
            // Only the current entry ends, once: a repeated end is ignored.
            guard machine.isCurrent(entry), let finished = nowPlayingLocked else { return }
            recordPlay(of: finished)
            perform(machine.advance())
        case .failed(let entry, _):
            perform(machine.entryFailed(entry))
        case .drained:
            // Ends are handled as they come; a stream with nothing at all left while playing means the queue is done.
            guard isPlayingOrSeeking else { return }
            perform(machine.endOfQueue())
        }
        if machine.current == nil, state != .stopped { setState(.stopped) }
        nowPlayingMayHaveChanged(from: before)
    }

    private func recordPlay(of item: any MusicItem) {
        guard let history else { return }
        // The play's calendar date is a record for the user, not a clock the player runs on.
        core.postCallback { history.recordPlay(of: item, at: Date()) }
    }

    private func recordSkip(of item: any MusicItem) {
        guard let history else { return }
        core.postCallback { history.recordSkip(of: item) }
    }

    /// Scanning: every slice of engine time, jump ahead or back.
    private func scan(at frame: Int64) {
        guard isSeeking, frame >= seekJumpFrame, let engine, let current = core.frame(in: machine.current) else {
            return
        }
        seekJumpFrame = frame + Int64(Self.seekSliceSeconds * Double(engine.sampleRate))
        let jump = state == .seekingForward ? Self.seekForwardJumpSeconds : Self.seekBackwardJumpSeconds
        perform(machine.start(at: max(0, current + Int64(jump * Double(engine.sampleRate)))))
    }

    // MARK: Session and shutdown (under the engine lock)

    package func sessionInterrupt(reason: String) -> Bool {
        guard isPlayingOrSeeking else { return false }
        stream.setPlaying(false)
        setState(.interrupted)
        return true
    }

    package func sessionPause(reason: String) {
        guard isPlayingOrSeeking else { return }
        stream.setPlaying(false)
        setState(.paused)
    }

    package func sessionResume(reason: String) {
        guard state == .interrupted else { return }
        stream.setPlaying(true)
        setState(.playing)
    }

    package func sessionKeepPaused(reason: String) {
        guard state == .interrupted else { return }
        setState(.paused)
    }

    /// The application player plays regardless of the silent switch: its music is the user's choice.
    package func setGameMusicMuted(_ muted: Bool) {}

    package func setHeldBack(_ heldBack: Bool) {
        core.sessionMuted = heldBack
    }

    package var isAudible: Bool { engine != nil && state != .stopped && state != .paused && state != .interrupted }
}
