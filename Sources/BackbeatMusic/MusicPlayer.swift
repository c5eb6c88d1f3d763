#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import BackbeatSupport
import BackbeatMedia
import BackbeatSession
import BackbeatEngine

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
public final class MusicPlayer: @unchecked Sendable, SessionMusicPlayer {
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
        public static func == (a: Event, b: Event) -> Bool {
            switch (a, b) {
            case (.playbackStateDidChange(let x), .playbackStateDidChange(let y)): x == y
            case (.nowPlayingItemDidChange(let x), .nowPlayingItemDidChange(let y)): isSameItem(x, y)
            case (.volumeDidChange(let x), .volumeDidChange(let y)): x == y
            default: false
            }
        }
    }

    weak var engine: AudioEngine?
    let stream: AudioStream
    package let sessionPlayerID = SessionPlayerID.next()
    package var isGameMusic: Bool { false }

    private var queue: [any MusicItem] = []
    private var history: (any MusicPlayHistory)?
    /// The play order, repeat and shuffle: a value of its own.
    private var cycle = QueueOrder()
    /// Where in `order` the now-playing item is.
    private var position: Int?
    private var state: PlaybackState = .stopped
    private var currentEntry: StreamEntry?
    /// What the stream will play after the current entry: positions in the current (`wraps` false) or next cycle.
    private var planned: [(position: Int, wraps: Bool, entry: StreamEntry)] = []
    private var prepared = false
    private var output = PlayerLevel()
    private var notifying = 0
    private let broadcast = EventBroadcast<Event>(bufferLimit: 1_024)
    /// Seeking: the next frame a slice ends and the jump per slice.
    private var seekJumpFrame: Int64 = 0
    private var stateBeforeSeeking: PlaybackState = .playing

    /// Engine frames a scanning slice plays, and stream frames each slice jumps.
    static let seekSliceSeconds = 0.2
    static let seekForwardJumpSeconds = 0.6
    static let seekBackwardJumpSeconds = -1.0

    /// The application music player of `engine` (made on first use).
    ///
    /// - Throws: ``BackbeatError/Code/engineShutDown``, or
    ///   ``BackbeatError/Code/openAL`` when the device has no source left.
    public static func application(for engine: AudioEngine) throws -> MusicPlayer {
        try engine.withLock {
            if let existing = engine.liveMusicPlayersLocked.lazy.compactMap({ $0 as? MusicPlayer }).first {
                return existing
            }
            let player = try MusicPlayer(engine: engine)
            engine.registerMusicPlayerLocked(player)
            return player
        }
    }

    private init(engine: AudioEngine) throws {
        try engine.checkUsable("MusicPlayer.application")
        self.engine = engine
        stream = try AudioStream(engine: engine)
        // Weak: the engine may run an update while the player is being released.
        stream.gain = { [weak self] frame in self?.gain(at: frame) ?? 0 }
        stream.onEvent = { [weak self] event in self?.handle(event) }
        stream.onPlanExhausted = { [weak self] in self?.extendPlan() }
        stream.onUpdate = { [weak self] frame in self?.scan(at: frame) }
    }

    deinit { stream.close() }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        guard let engine else { return try body() }
        defer { engine.deliverPendingEvents() }
        return try engine.withLock(body)
    }

    // MARK: Queue

    /// Plays `items`, in order (or shuffled). The player stops; the first
    /// item becomes the now-playing item. (`BackbeatLibrary` adds queues from
    /// a query or a collection, with play counts.)
    public func setQueue(items: [any MusicItem]) {
        setQueue(items: items, history: nil)
    }

    /// ``setQueue(items:)``, recording plays and skips in `history`.
    package func setQueue(items: [any MusicItem], history: (any MusicPlayHistory)?) {
        locked {
            queue = items
            self.history = history
            cycle.reset(albums: items.map(\.albumTitle))
            let before = nowPlayingLocked
            position = queue.isEmpty ? nil : 0
            stopStream()
            setState(.stopped)
            if !isSameItem(before, nowPlayingLocked) { notify(.nowPlayingItemDidChange(nowPlayingLocked)) }
        }
    }

    /// The item playing, paused or about to play; nil with an empty queue.
    public var nowPlayingItem: (any MusicItem)? { locked { nowPlayingLocked } }

    /// The index of ``nowPlayingItem`` in the queue as set (not the shuffled order); nil with an empty queue.
    public var indexOfNowPlayingItem: Int? { locked { position.map { cycle.order[$0] } } }

    private var nowPlayingLocked: (any MusicItem)? { position.map { queue[cycle.order[$0]] } }

    /// Repeat mode; default ``RepeatMode/none``.
    public var repeatMode: RepeatMode {
        get { locked { cycle.repeatMode } }
        set {
            locked {
                cycle.repeatMode = newValue; replan()
            }
        }
    }

    /// Shuffle mode; default ``ShuffleMode/off``. Changing it keeps the
    /// now-playing item and reorders the rest.
    public var shuffleMode: ShuffleMode {
        get { locked { cycle.shuffleMode } }
        set {
            locked {
                guard newValue != cycle.shuffleMode else { return }
                position = cycle.setShuffle(newValue, keeping: position.map { cycle.order[$0] })
                replan()
            }
        }
    }

    /// Seeds the shuffle, so an order can be reproduced (tests, replays).
    public func seedShuffle(_ seed: UInt64) {
        locked {
            position = cycle.seed(seed, keeping: position.map { cycle.order[$0] })
            replan()
        }
    }

    // MARK: Transport

    /// Opens the now-playing item and decodes its first buffers, so ``play()`` starts at once.
    ///
    /// - Throws: ``BackbeatError/Code/emptyQueue`` when the queue is empty.
    public func prepareToPlay() throws {
        try locked {
            guard position != nil else {
                throw BackbeatError(.emptyQueue, operation: "MusicPlayer.prepareToPlay", reason: "set a queue first")
            }
            if !prepared { startStream(at: 0) }
        }
    }

    /// Plays from where it is. With an empty queue it does nothing (the state
    /// stays ``PlaybackState/stopped``; ``prepareToPlay()`` throws instead).
    public func play() {
        // An interruption that began and never ended must not wedge the game:
        // asking to play ends it (the session decides; it is a no-op otherwise).
        engine?.session.playRequested(by: sessionPlayerID)
        locked {
            guard position != nil else { return }
            if !prepared { startStream(at: 0) }
            stream.setPlaying(true)
            setState(.playing)
        }
    }

    /// Pauses where it is.
    public func pause() {
        locked {
            guard state != .stopped, state != .paused else { return }
            stream.setPlaying(false)
            setState(.paused)
        }
    }

    /// Stops; the now-playing item stays, and the next ``play()`` starts it from its beginning.
    public func stop() {
        locked {
            guard state != .stopped else { return }
            stopStream()
            setState(.stopped)
        }
    }

    /// What the player is doing.
    public var playbackState: PlaybackState { locked { state } }

    /// The position in the now-playing item, in frames of the engine's rate.
    public var currentPlaybackTime: MediaTime {
        locked {
            let rate = stream.feed.sampleRate
            return MediaTime(frames: currentFrameLocked() ?? 0, sampleRate: rate)
        }
    }

    /// Moves to `time` in the now-playing item, sample-accurately: below zero
    /// clamps to zero; at or beyond the item's end, the item ends and the queue
    /// moves on as if it had played through. Nothing happens on an empty queue.
    public func seek(to time: MediaTime) {
        locked {
            guard position != nil else { return }
            // The conversion saturates, so a huge time seeks to the end, never traps.
            let frame = max(0, time.frames(atSampleRate: stream.feed.sampleRate))
            startStream(at: frame)
        }
    }

    private func currentFrameLocked() -> Int64? {
        guard let currentEntry else { return nil }
        if let p = stream.position, p.entry == currentEntry.id { return p.frame }
        return currentEntry.startFrame
    }

    /// Scans forward audibly: short slices of the song, skipping ahead (about 4× speed) until ``endSeeking()``.
    public func beginSeekingForward() { beginSeeking(.seekingForward) }

    /// Scans backward audibly: short slices, each further back, until ``endSeeking()`` or the item's start.
    public func beginSeekingBackward() { beginSeeking(.seekingBackward) }

    private func beginSeeking(_ direction: PlaybackState) {
        locked {
            guard let engine, position != nil, state != direction else { return }
            if state != .seekingForward && state != .seekingBackward {
                stateBeforeSeeking = state == .playing ? .playing : .paused
            }
            if !prepared { startStream(at: 0) }
            stream.setPlaying(true)
            seekJumpFrame = engine.currentFrameLocked + Int64(Self.seekSliceSeconds * Double(engine.sampleRate))
            setState(direction)
        }
    }

    /// Ends scanning and returns to playing (or paused, if it was paused).
    public func endSeeking() {
        locked {
            guard state == .seekingForward || state == .seekingBackward else { return }
            if stateBeforeSeeking != .playing { stream.setPlaying(false) }
            setState(stateBeforeSeeking)
        }
    }

    /// Moves to the next item (counted as a skip). At the end of the queue
    /// without repeat, the player stops at the first item.
    public func skipToNextItem() {
        locked {
            guard let position else { return }
            recordSkip(of: queue[cycle.order[position]])
            if let next = cycle.successor(of: position, wraps: false, ignoreRepeatOne: true) {
                moveTo(next.position, newCycle: next.wraps)
            } else {
                endOfQueue()
            }
        }
    }

    /// Moves to the previous item, or restarts the now-playing item when more than 3 s in.
    public func skipToPreviousItem() {
        locked {
            guard let position else { return }
            if let frame = currentFrameLocked(), frame > Int64(3 * stream.feed.sampleRate) {
                startStream(at: 0)
                return
            }
            if position > 0 {
                moveTo(position - 1, newCycle: false)
            } else if cycle.repeatMode == .all, !cycle.order.isEmpty {
                moveTo(cycle.order.count - 1, newCycle: false)
            } else {
                startStream(at: 0)
            }
        }
    }

    /// Restarts the now-playing item.
    public func skipToBeginning() {
        locked { if position != nil { startStream(at: 0) } }
    }

    // MARK: Volume, fades, meters

    /// The player's volume, 0...1 (clamped; NaN ignored); setting it cancels a fade.
    public var volume: Float {
        get { locked { output.volume } }
        set { locked { if let new = output.setVolume(newValue) { notify(.volumeDidChange(new)) } } }
    }

    /// Fades the volume to `target` over `duration` of engine time.
    public func fade(to target: Float, duration: MediaTime, curve: FadeCurve = .equalPower) {
        locked {
            guard let engine else { return }
            let frames = duration.frames(atSampleRate: engine.sampleRate)
            if let new = output.fade(to: target, at: engine.currentFrameLocked, frames: frames, curve: curve) {
                notify(.volumeDidChange(new))
            }
        }
    }

    /// Fades to silence, equal-power, over `duration` — what engine shutdown
    /// does. The player keeps its state; the fade lasts until shutdown.
    public func fadeOut(duration: MediaTime = MediaTime(seconds: 1)) {
        locked {
            guard let engine else { return }
            beginShutdownFade(
                at: engine.currentFrameLocked, frames: max(0, duration.frames(atSampleRate: engine.sampleRate)))
        }
    }

    /// Whether ``updateMeters()`` measures levels. Default false.
    public var isMeteringEnabled: Bool {
        get { locked { stream.isMeteringEnabled } }
        set {
            locked {
                stream.isMeteringEnabled = newValue; if !newValue { output.meters.reset() }
            }
        }
    }

    /// Refreshes the meters from the audio played since the last refresh (after the player's volume).
    public func updateMeters() {
        locked { if stream.isMeteringEnabled { output.meters.update(from: stream) } }
    }

    /// Average power of `channel` (0 left, 1 right) in dB at the last ``updateMeters()``; -160 is silence.
    public func averagePower(forChannel channel: Int) -> Float { locked { output.meters.average(forChannel: channel) } }

    /// Peak power of `channel` in dB at the last ``updateMeters()``.
    public func peakPower(forChannel channel: Int) -> Float { locked { output.meters.peak(forChannel: channel) } }

    /// Underruns so far (always zero on offline outputs).
    public var underrunCount: Int { locked { stream.underruns } }

    // MARK: Notifications

    /// Starts generating notifications (calls nest: each needs an ``endGeneratingPlaybackNotifications()``).
    public func beginGeneratingPlaybackNotifications() { locked { notifying += 1 } }

    /// Stops generating notifications once every begin has its end.
    public func endGeneratingPlaybackNotifications() { locked { notifying = max(0, notifying - 1) } }

    /// Calls `handler` with each event until the returned token is cancelled,
    /// outside the engine lock, where the engine delivers its own events.
    @discardableResult
    public func observe(_ handler: @escaping @Sendable (Event) -> Void) -> ObservationToken {
        broadcast.observe(handler)
    }

    /// A new stream of events from now on; it ends when the engine shuts down.
    /// It keeps the newest 1,024 events its consumer has not read.
    public func events() -> AsyncStream<Event> {
        broadcast.events()
    }

    private func notify(_ event: Event) {
        guard notifying > 0, let engine else { return }
        let broadcast = self.broadcast
        engine.postLocked(callback: { broadcast.send(event) })
    }

    // MARK: Internals (under the engine lock)

    private func gain(at frame: Int64) -> Float { output.gain(at: frame) }

    private func setState(_ new: PlaybackState) {
        guard new != state else { return }
        state = new
        notify(.playbackStateDidChange(new))
    }

    /// Restarts the stream on the now-playing item at `frame`, with the plan after it.
    private func startStream(at frame: Int64) {
        guard let position else { return }
        let url = queue[cycle.order[position]].asset.url
        let entry = StreamEntry(id: StreamEntry.nextID(), url: url, startFrame: frame)
        currentEntry = entry
        planned = []
        if let next = cycle.successor(of: position, wraps: false) {
            planned = [
                (
                    next.position, next.wraps,
                    StreamEntry(
                        id: StreamEntry.nextID(), url: queue[cycle.item(at: next.position, wraps: next.wraps)].asset.url
                    )
                )
            ]
        }
        prepared = true
        stream.restart(with: [entry] + planned.map(\.entry), rampIn: frame > 0)
        if state == .playing || state == .seekingForward || state == .seekingBackward { stream.setPlaying(true) }
    }

    private func stopStream() {
        stream.restart(with: [], rampIn: false)
        stream.setPlaying(false)
        currentEntry = nil
        planned = []
        prepared = false
    }

    /// Recomputes the plan after the current entry (repeat or shuffle changed).
    private func replan() {
        guard let currentEntry, let position else { return }
        var entries: [(position: Int, wraps: Bool, entry: StreamEntry)] = []
        if let next = cycle.successor(of: position, wraps: false) {
            if let old = planned.first, old.position == next.position, old.wraps == next.wraps {
                entries = [old]
            } else {
                entries = [
                    (
                        next.position, next.wraps,
                        StreamEntry(
                            id: StreamEntry.nextID(),
                            url: queue[cycle.item(at: next.position, wraps: next.wraps)].asset.url)
                    )
                ]
            }
        }
        planned = entries
        stream.setUpcoming(planned.map(\.entry), current: currentEntry)
    }

    /// The decoder ran out of plan: add the successor of the last planned entry.
    private func extendPlan() {
        guard let currentEntry, let position else { return }
        let last = planned.last.map { ($0.position, $0.wraps) } ?? (position, false)
        guard planned.count < 4, let next = cycle.successor(of: last.0, wraps: last.1) else { return }
        planned.append(
            (
                next.position, next.wraps,
                StreamEntry(
                    id: StreamEntry.nextID(), url: queue[cycle.item(at: next.position, wraps: next.wraps)].asset.url)
            ))
        stream.setUpcoming(planned.map(\.entry), current: currentEntry)
    }

    /// Moves the now-playing item to `newPosition` and restarts the stream there.
    private func moveTo(_ newPosition: Int, newCycle: Bool) {
        let before = nowPlayingLocked
        if newCycle { cycle.beginNextCycle() }
        position = newPosition
        if state == .stopped { prepared = false; currentEntry = nil } else { startStream(at: 0) }
        if !isSameItem(before, nowPlayingLocked) { notify(.nowPlayingItemDidChange(nowPlayingLocked)) }
    }

    private func endOfQueue() {
        let before = nowPlayingLocked
        stopStream()
        if !cycle.order.isEmpty { position = 0 }
        setState(.stopped)
        if !isSameItem(before, nowPlayingLocked) { notify(.nowPlayingItemDidChange(nowPlayingLocked)) }
    }

    private func handle(_ event: StreamEvent) {
        switch event {
        case .deviceReplaced(let at):
            // Carry on from where the lost device was heard.
            guard prepared else { return }
            startStream(at: at.flatMap { $0.entry == currentEntry?.id ? $0.frame : nil } ?? 0)
        case .started:
            break
        case .ended(let entry):
            // Only the current entry ends, once: a repeated end is ignored.
            guard entry == currentEntry?.id, let position else { return }
            recordPlay(of: queue[cycle.order[position]])
            advance()
        case .failed(let entry, let error):
            _ = error
            if entry == currentEntry?.id, let position {
                cycle.failedItems.insert(cycle.order[position])
                advance()
            } else if let i = planned.firstIndex(where: { $0.entry.id == entry }) {
                cycle.failedItems.insert(cycle.item(at: planned[i].position, wraps: planned[i].wraps))
                planned.remove(at: i)
                replan()
            }
        case .underrun:
            break
        case .drained:
            // Ends are handled as they come; a stream with nothing at all left while playing means the queue is done.
            if state == .playing || state == .seekingForward || state == .seekingBackward { endOfQueue() }
        }
    }

    /// The current entry is done: the planned next becomes current (its audio
    /// is already queued, gaplessly), or the queue ends.
    private func advance() {
        let before = nowPlayingLocked
        guard let next = planned.first else {
            if let position, let s = cycle.successor(of: position, wraps: false) {
                moveTo(s.position, newCycle: s.wraps)
            } else {
                endOfQueue()
            }
            return
        }
        planned.removeFirst()
        if next.wraps {
            cycle.beginNextCycle()
            // What was planned in the next cycle is now in this one.
            planned = planned.map { ($0.position, false, $0.entry) }
        }
        position = next.position
        currentEntry = next.entry
        replan()
        if !isSameItem(before, nowPlayingLocked) { notify(.nowPlayingItemDidChange(nowPlayingLocked)) }
    }

    private func recordPlay(of item: any MusicItem) {
        guard let history, let engine else { return }
        // The play's calendar date is a record for the user, not a clock the player runs on.
        engine.postLocked(callback: { history.recordPlay(of: item, at: Date()) })
    }

    private func recordSkip(of item: any MusicItem) {
        guard let history, let engine else { return }
        engine.postLocked(callback: { history.recordSkip(of: item) })
    }

    /// Scanning: every slice of engine time, jump ahead or back.
    private func scan(at frame: Int64) {
        guard state == .seekingForward || state == .seekingBackward, frame >= seekJumpFrame, let engine,
            let current = currentFrameLocked()
        else { return }
        seekJumpFrame = frame + Int64(Self.seekSliceSeconds * Double(engine.sampleRate))
        let jump = state == .seekingForward ? Self.seekForwardJumpSeconds : Self.seekBackwardJumpSeconds
        let target = max(0, current + Int64(jump * Double(engine.sampleRate)))
        startStream(at: target)
    }

    // MARK: Session and shutdown (under the engine lock)

    package func sessionInterrupt(reason: String) -> Bool {
        guard state == .playing || state == .seekingForward || state == .seekingBackward else { return false }
        stream.setPlaying(false)
        setState(.interrupted)
        return true
    }

    package func sessionPause(reason: String) {
        guard state == .playing || state == .seekingForward || state == .seekingBackward else { return }
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
        stream.isMuted = heldBack
    }

    package func finishEventStreams() {
        let broadcast = self.broadcast
        if let engine { engine.afterPendingEvents { broadcast.finish() } } else { broadcast.finish() }
    }

    package func beginShutdownFade(at frame: Int64, frames: Int64) {
        output.beginShutdownFade(at: frame, frames: frames)
    }

    package var isAudible: Bool { engine != nil && state != .stopped && state != .paused && state != .interrupted }
}
