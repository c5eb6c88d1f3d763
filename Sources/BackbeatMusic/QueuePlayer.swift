#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import BackbeatSupport
import BackbeatMedia
import BackbeatSession
import BackbeatEngine

/// A gapless queue of songs streamed from disk, like `AVQueuePlayer`: the
/// game's own background music.
///
/// The first item of ``items()`` is the current one. Each song streams (a
/// third of a second of audio is buffered, whatever its length) and the next
/// item's first frame follows the previous item's last. An item that cannot be
/// played (missing, corrupt or unsupported) is reported with
/// ``Event/itemFailed(_:_:)``, removed and skipped; the queue never stalls.
///
/// ```swift
/// let player = try QueuePlayer(engine: engine, items: urls.map(PlayerItem.init(url:)))
/// player.loopsQueue = true          // wrap to the first song, as game music does
/// player.play()
/// ```
///
/// The player plays on ``AudioEngine/musicBus``. The audio session's silent
/// switch mutes it without stopping time.
public final class QueuePlayer: @unchecked Sendable, SessionMusicPlayer {
    // @unchecked: every mutable member is touched only under the engine lock.

    /// What happens when an item plays to its end.
    public enum ActionAtItemEnd: Sendable, Equatable {
        /// The next item plays, gaplessly.
        case advance
        /// The player moves to the next item and pauses at its start.
        case pause
        /// The player stays at the end of the item, silent, until told otherwise.
        case none
    }

    /// Whether the player is making sound.
    public enum TimeControlStatus: Sendable, Equatable {
        /// Paused (or at the end of its queue).
        case paused
        /// Playing.
        case playing
        /// Paused by an audio-session interruption; it resumes where it was when the interruption ends.
        case interrupted
    }

    /// Something the player did; each happens once, in order.
    public enum Event: Sendable, Equatable {
        /// The current item changed (nil: the queue ran out).
        case currentItemChanged(PlayerItem?)
        /// An item played to its end.
        case itemDidPlayToEnd(PlayerItem)
        /// An item could not be played; it was removed and skipped.
        case itemFailed(PlayerItem, BackbeatError)
        /// ``timeControlStatus`` changed.
        case timeControlStatusChanged(TimeControlStatus)
        /// The stream ran dry before the decoder caught up (real-time outputs
        /// only); it restarted by itself. `total` counts them.
        case underrun(total: Int)
    }

    weak var engine: AudioEngine?
    /// The stream playing the current item.
    private(set) var stream: AudioStream
    /// The second stream a crossfade needs (made on first use), and the one fading out now.
    private var spareStream: AudioStream?
    private var outgoing: AudioStream?
    /// Per-stream crossfade gains, keyed by stream identity.
    private var crossfadeGains: [ObjectIdentifier: Fade] = [:]
    private var crossfadeFrames: Int64 = 0
    /// The current item's length in stream frames, once it started.
    private var currentFrameCount: Int64?
    package let sessionPlayerID = SessionPlayerID.next()
    package var isGameMusic: Bool { true }

    private var queue: [PlayerItem] = []
    private var currentEntry: StreamEntry?
    /// Entries planned after the current one, with their items.
    private var planned: [(item: PlayerItem, entry: StreamEntry)] = []
    private var status: TimeControlStatus = .paused
    private var action: ActionAtItemEnd = .advance
    private var looping = false
    private var output = PlayerLevel()
    private var userMuted = false
    private var sessionMuted = false
    /// An item that ended with action `.none`: the player rests at its end.
    private var restingAtEnd = false
    private let broadcast = EventBroadcast<Event>(bufferLimit: 1_024)

    /// A player for `items`, on `engine`'s music bus.
    ///
    /// - Throws: ``BackbeatError`` with ``BackbeatError/Code/openAL`` when the
    ///   device has no source left for a stream, or
    ///   ``BackbeatError/Code/engineShutDown``.
    public init(engine: AudioEngine, items: [PlayerItem] = []) throws {
        self.engine = engine
        stream = try engine.withLock {
            try engine.checkUsable("QueuePlayer.init")
            return try AudioStream(engine: engine)
        }
        engine.withLock {
            var seen = Set<ObjectIdentifier>()
            queue = items.filter { seen.insert(ObjectIdentifier($0)).inserted }
            configure(stream)
            engine.registerMusicPlayerLocked(self)
        }
    }

    deinit {
        stream.close()
        spareStream?.close()
    }

    private func configure(_ stream: AudioStream) {
        // Weak: the engine may run an update while the player is being released.
        stream.gain = { [weak self, weak stream] frame in
            guard let self, let stream else { return 0 }
            return self.gain(at: frame) * (self.crossfadeGains[ObjectIdentifier(stream)]?.gain(at: frame) ?? 1)
        }
        stream.onEvent = { [weak self, weak stream] event in
            guard let self, let stream else { return }
            if stream === self.stream { self.handle(event) } else { self.handleOutgoing(event, from: stream) }
        }
        stream.onPlanExhausted = { [weak self, weak stream] in if let self, stream === self.stream { self.refillPlan() }
        }
        stream.onUpdate = { [weak self, weak stream] frame in
            if let self, stream === self.stream { self.checkCrossfade(at: frame) }
        }
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        guard let engine else { return try body() }
        defer { engine.deliverPendingEvents() }
        return try engine.withLock(body)
    }

    // MARK: Queue

    /// The items, the current one first.
    public func items() -> [PlayerItem] { locked { queue } }

    /// The item playing (or paused), nil when the queue is empty.
    public var currentItem: PlayerItem? { locked { queue.first } }

    /// Whether ``insert(_:after:)`` would accept `item` after `afterItem`.
    public func canInsert(_ item: PlayerItem, after afterItem: PlayerItem?) -> Bool {
        locked { canInsertLocked(item, after: afterItem) }
    }

    private func canInsertLocked(_ item: PlayerItem, after afterItem: PlayerItem?) -> Bool {
        !queue.contains(item) && (afterItem.map { queue.contains($0) } ?? true)
    }

    /// Inserts `item` after `afterItem`, or at the end when `afterItem` is nil.
    ///
    /// - Throws: ``BackbeatError/Code/invalidArgument`` when `item` is already
    ///   in the queue or `afterItem` is not.
    public func insert(_ item: PlayerItem, after afterItem: PlayerItem?) throws {
        try locked {
            guard canInsertLocked(item, after: afterItem) else {
                let reason =
                    queue.contains(item) ? "\(item) is already in the queue" : "\(afterItem!) is not in the queue"
                throw BackbeatError(.invalidArgument, operation: "QueuePlayer.insert", url: item.url, reason: reason)
            }
            if let afterItem, let i = queue.firstIndex(of: afterItem) {
                queue.insert(item, at: i + 1)
            } else {
                queue.append(item)
            }
            if queue.count == 1 { startCurrent(at: 0) } else { replan() }
        }
    }

    /// Removes `item`. Removing the current item moves to the next; removing
    /// an item that is not in the queue does nothing.
    public func remove(_ item: PlayerItem) {
        locked {
            guard let i = queue.firstIndex(of: item) else { return }
            queue.remove(at: i)
            if i == 0 { currentChanged(); startCurrent(at: 0) } else { replan() }
        }
    }

    /// Empties the queue and stops.
    public func removeAllItems() {
        locked {
            guard !queue.isEmpty else { return }
            queue.removeAll()
            currentChanged()
            startCurrent(at: 0)
        }
    }

    /// Ends the current item now and moves to the next (with ``loopsQueue``,
    /// the current item goes to the back of the queue).
    public func skipToNextItem() {
        locked {
            guard let first = queue.first else { return }
            queue.removeFirst()
            if looping { queue.append(first) }
            currentChanged()
            startCurrent(at: 0)
        }
    }

    /// What happens when an item ends; default ``ActionAtItemEnd/advance``.
    public var actionAtItemEnd: ActionAtItemEnd {
        get { locked { action } }
        set {
            locked {
                action = newValue; replan()
            }
        }
    }

    /// When true, an item that ends goes to the back of the queue instead of
    /// leaving it, so the queue plays round and round. Default false.
    public var loopsQueue: Bool {
        get { locked { looping } }
        set {
            locked {
                looping = newValue; replan()
            }
        }
    }

    // MARK: Transport

    /// Plays from the current position. With an empty queue it does nothing
    /// (``timeControlStatus`` stays ``TimeControlStatus/paused``).
    public func play() {
        // An interruption that began and never ended must not wedge the game:
        // asking to play ends it (the session decides; it is a no-op otherwise).
        engine?.session.playRequested(by: sessionPlayerID)
        locked {
            guard !queue.isEmpty else { return }
            if restingAtEnd {
                // Action `.none` left it at the end of an item: play the next.
                advanceAfterEnd()
            }
            if currentEntry == nil { startCurrent(at: 0) }
            setStreamsPlaying(true)
            setStatus(.playing)
        }
    }

    /// Pauses where it is.
    public func pause() {
        locked {
            setStreamsPlaying(false)
            setStatus(.paused)
        }
    }

    /// Playing, paused or interrupted.
    public var timeControlStatus: TimeControlStatus { locked { status } }

    /// The position in the current item (engine time, from the frames OpenAL played).
    public var currentPlaybackTime: MediaTime {
        locked {
            guard let engine else { return .zero }
            let frame =
                stream.position.flatMap { $0.entry == currentEntry?.id ? $0.frame : nil } ?? currentEntry?.startFrame
                ?? 0
            return MediaTime(frames: frame, sampleRate: engine.sampleRate)
        }
    }

    /// Moves to `time` in the current item, sample-accurately. Times below
    /// zero clamp to zero; a time at or beyond the item's end ends the item
    /// (the queue moves on as if it had played through). Without a current
    /// item it does nothing.
    public func seek(to time: MediaTime) {
        locked {
            guard let engine, !queue.isEmpty else { return }
            let frame = max(0, time.frames(atSampleRate: engine.sampleRate, rounding: .nearest))
            startCurrent(at: frame)
        }
    }

    // MARK: Volume and metering

    /// The player's volume, 0...1 (clamped; NaN ignored). Setting it cancels a fade.
    public var volume: Float {
        get { locked { output.volume } }
        set { locked { _ = output.setVolume(newValue) } }
    }

    /// Fades the volume to `target` over `duration` of engine time.
    public func fade(to target: Float, duration: MediaTime, curve: FadeCurve = .equalPower) {
        locked {
            guard let engine else { return }
            _ = output.fade(
                to: target, at: engine.currentFrameLocked, frames: duration.frames(atSampleRate: engine.sampleRate),
                curve: curve)
        }
    }

    /// Fades to silence, equal-power, over `duration` (what engine shutdown does).
    public func fadeOut(duration: MediaTime = MediaTime(seconds: 1)) {
        locked {
            guard let engine else { return }
            beginShutdownFade(
                at: engine.currentFrameLocked, frames: max(0, duration.frames(atSampleRate: engine.sampleRate)))
        }
    }

    /// Silences the player without stopping time.
    public var isMuted: Bool {
        get { locked { userMuted } }
        set {
            locked {
                userMuted = newValue; applyMute()
            }
        }
    }

    /// Whether ``updateMeters()`` measures levels. Default false.
    public var isMeteringEnabled: Bool {
        get { locked { stream.isMeteringEnabled } }
        set {
            locked {
                for s in [stream, spareStream].compactMap({ $0 }) { s.isMeteringEnabled = newValue }
                if !newValue { output.meters.reset() }
            }
        }
    }

    /// Refreshes the meters from the audio played since the last refresh.
    public func updateMeters() {
        locked { if stream.isMeteringEnabled { output.meters.update(from: stream) } }
    }

    /// Average power of `channel` (0 left, 1 right) in dB at the last
    /// ``updateMeters()``; -160 is silence, 0 full scale.
    public func averagePower(forChannel channel: Int) -> Float { locked { output.meters.average(forChannel: channel) } }

    /// Peak power of `channel` in dB at the last ``updateMeters()``.
    public func peakPower(forChannel channel: Int) -> Float { locked { output.meters.peak(forChannel: channel) } }

    /// Underruns so far (always zero on offline outputs).
    public var underrunCount: Int { locked { stream.underruns } }

    /// Bytes of PCM the player's stream holds now (audio queued on OpenAL and
    /// decoded chunks waiting). It never exceeds a fixed bound of about half a
    /// second of stereo Float32, whatever the song's length.
    public var streamBufferBytes: Int { locked { stream.bufferedBytes } }

    // MARK: Events

    /// A new stream of the player's events from now on; it ends when the engine shuts down.
    /// It keeps the newest 1,024 events its consumer has not read.
    public func events() -> AsyncStream<Event> {
        broadcast.events()
    }

    /// Calls `handler` with each event until the returned token is cancelled,
    /// outside the engine lock, where the engine delivers its own events.
    @discardableResult
    public func observe(_ handler: @escaping @Sendable (Event) -> Void) -> ObservationToken {
        broadcast.observe(handler)
    }

    private func post(_ event: Event) {
        guard let engine else { return }
        let broadcast = self.broadcast
        engine.postLocked(callback: { broadcast.send(event) })
    }

    // MARK: Internals (under the engine lock)

    private func gain(at frame: Int64) -> Float { output.gain(at: frame) }

    private func applyMute() {
        for s in [stream, spareStream].compactMap({ $0 }) { s.isMuted = userMuted || sessionMuted }
    }

    private func setStatus(_ new: TimeControlStatus) {
        guard new != status else { return }
        status = new
        post(.timeControlStatusChanged(new))
    }

    private func currentChanged() {
        restingAtEnd = false
        post(.currentItemChanged(queue.first))
    }

    private func setStreamsPlaying(_ play: Bool) {
        stream.setPlaying(play)
        outgoing?.setPlaying(play)
    }

    /// (Re)starts the stream on the current item at `frame`, with the plan after it.
    private func startCurrent(at frame: Int64) {
        restingAtEnd = false
        currentFrameCount = nil
        cancelCrossfade()
        planned.removeAll()
        guard let item = queue.first else {
            currentEntry = nil
            stream.restart(with: [], rampIn: false)
            setStreamsPlaying(false)
            setStatus(.paused)
            return
        }
        let entry = StreamEntry(id: StreamEntry.nextID(), url: item.url, startFrame: frame)
        currentEntry = entry
        planned = upcomingItems().map { ($0, StreamEntry(id: StreamEntry.nextID(), url: $0.url)) }
        stream.restart(with: [entry] + planned.map(\.entry), rampIn: frame > 0)
    }

    /// The items that follow the current one when it ends (two at most: the stream looks a third of a second ahead).
    /// With a crossfade, the next item starts on the other stream instead.
    private func upcomingItems() -> [PlayerItem] {
        guard action == .advance, !queue.isEmpty, crossfadeFrames == 0 else { return [] }
        var next = Array(queue.dropFirst())
        if looping { next.append(queue[0]) }
        return Array(next.prefix(2))
    }

    /// Recomputes the plan after the current entry, keeping entries that still fit.
    private func replan() {
        guard let current = currentEntry else { return }
        let items = upcomingItems()
        var entries: [(item: PlayerItem, entry: StreamEntry)] = []
        for (i, item) in items.enumerated() {
            if i < planned.count, planned[i].item === item {
                entries.append(planned[i])
            } else {
                entries.append((item, StreamEntry(id: StreamEntry.nextID(), url: item.url)))
            }
        }
        planned = entries
        stream.setUpcoming(planned.map(\.entry), current: current)
    }

    private func refillPlan() {
        guard planned.isEmpty, currentEntry != nil, !upcomingItems().isEmpty else { return }
        replan()
    }

    private func item(for entry: UInt64) -> PlayerItem? {
        if entry == currentEntry?.id { return queue.first }
        return planned.first { $0.entry.id == entry }?.item
    }

    private func handle(_ event: StreamEvent) {
        switch event {
        case .deviceReplaced(let position):
            // Carry on from where the lost device was heard.
            let frame = position.flatMap { $0.entry == currentEntry?.id ? $0.frame : nil } ?? 0
            if currentEntry != nil { startCurrent(at: frame) }
            setStreamsPlaying(status == .playing)
        case .started(let entry, let frameCount):
            guard let engine, let item = item(for: entry) else { return }
            item.markReady(frameCount: frameCount, sampleRate: engine.sampleRate)
            if entry == currentEntry?.id { currentFrameCount = frameCount }
        case .ended(let entry):
            // Only the current entry can end, and only once: a second end for
            // the same entry (or one for an entry already left) is ignored.
            guard entry == currentEntry?.id, let finished = queue.first else { return }
            post(.itemDidPlayToEnd(finished))
            switch action {
            case .advance:
                advanceAfterEnd()
            case .pause:
                advanceAfterEnd()
                setStreamsPlaying(false)
                setStatus(.paused)
            case .none:
                restingAtEnd = true
            }
        case .failed(let entry, let error):
            guard let item = item(for: entry) else { return }
            item.markFailed(error)
            post(.itemFailed(item, error))
            if entry == currentEntry?.id {
                // It never started (or it stops here): the stream already moved on to the plan.
                queue.removeFirst()
                currentEntry = nil
                if let next = planned.first, next.item === queue.first {
                    currentEntry = next.entry
                    planned.removeFirst()
                    currentChanged()
                    replan()
                } else {
                    currentChanged()
                    if status == .playing { startCurrent(at: 0) }
                }
            } else {
                queue.removeAll { $0 === item }
                planned.removeAll { $0.entry.id == entry }
                replan()
            }
        case .underrun(let total):
            post(.underrun(total: total))
        case .drained:
            if restingAtEnd { setStatus(.paused); return }
            if queue.isEmpty || currentEntry == nil {
                setStreamsPlaying(false)
                setStatus(.paused)
            }
        }
    }

    // MARK: Crossfade (under the engine lock)

    /// Crossfades into the next item over `duration`, on a second stream, equal-power;
    /// zero (the default) plays items gaplessly instead. Negative values count as zero.
    ///
    /// - Throws: ``BackbeatError/Code/openAL`` when the device has no source left for the second stream.
    public func setCrossfadeDuration(_ duration: MediaTime) throws {
        try locked {
            guard let engine else { return }
            let frames = max(0, duration.frames(atSampleRate: engine.sampleRate))
            if frames > 0, spareStream == nil {
                let spare = try AudioStream(engine: engine)
                spare.isMeteringEnabled = stream.isMeteringEnabled
                configure(spare)
                spareStream = spare
                applyMute()
            }
            crossfadeFrames = frames
            replan()
        }
    }

    /// The crossfade between items; zero when items play gaplessly.
    public var crossfadeDuration: MediaTime {
        locked { MediaTime(frames: crossfadeFrames, sampleRate: engine?.sampleRate ?? 48_000) }
    }

    /// On the current stream's update: start the crossfade when the item is that close to its end.
    private func checkCrossfade(at frame: Int64) {
        guard crossfadeFrames > 0, action == .advance, outgoing == nil, status == .playing,
            let current = currentEntry, let length = currentFrameCount,
            let position = stream.position, position.entry == current.id,
            length - position.frame <= crossfadeFrames,
            queue.count > 1 || (looping && !queue.isEmpty), let spare = spareStream
        else { return }
        let fadeFrames = max(1, min(crossfadeFrames, length - position.frame))
        let finished = queue.removeFirst()
        if looping { queue.append(finished) }
        post(.itemDidPlayToEnd(finished))
        let old = stream
        stream = spare
        spareStream = old
        outgoing = old
        crossfadeGains[ObjectIdentifier(old)] = Fade(
            from: 1, to: 0, startFrame: frame, frames: fadeFrames, curve: .equalPower)
        crossfadeGains[ObjectIdentifier(spare)] = Fade(
            from: 0, to: 1, startFrame: frame, frames: fadeFrames, curve: .equalPower)
        currentChanged()
        guard let item = queue.first else { return }
        let entry = StreamEntry(id: StreamEntry.nextID(), url: item.url)
        currentEntry = entry
        currentFrameCount = nil
        planned.removeAll()
        spare.restart(with: [entry], rampIn: false)
        spare.setPlaying(true)
    }

    /// Events of the stream fading out: it only has to finish.
    private func handleOutgoing(_ event: StreamEvent, from old: AudioStream) {
        switch event {
        case .ended, .drained, .failed, .deviceReplaced:
            guard old === outgoing else { return }
            cancelCrossfade()
        case .started, .underrun:
            break
        }
    }

    /// Stops the stream fading out, if any.
    private func cancelCrossfade() {
        if let old = outgoing {
            old.restart(with: [], rampIn: false)
            old.setPlaying(false)
            crossfadeGains[ObjectIdentifier(old)] = nil
        }
        outgoing = nil
        crossfadeGains[ObjectIdentifier(stream)] = nil
    }

    /// The current item ended: move it out (or to the back), and make the next current.
    private func advanceAfterEnd() {
        restingAtEnd = false
        guard !queue.isEmpty else { return }
        let finished = queue.removeFirst()
        if looping { queue.append(finished) }
        if let next = planned.first, next.item === queue.first {
            currentEntry = next.entry
            planned.removeFirst()
            currentChanged()
            replan()
        } else {
            currentChanged()
            currentEntry = nil
            if queue.isEmpty {
                setStreamsPlaying(false)
                setStatus(.paused)
            } else {
                startCurrent(at: 0)
            }
        }
    }

    // MARK: Session and shutdown (under the engine lock)

    package func sessionInterrupt(reason: String) -> Bool {
        guard status == .playing else { return false }
        setStreamsPlaying(false)
        setStatus(.interrupted)
        return true
    }

    package func sessionPause(reason: String) {
        guard status == .playing else { return }
        setStreamsPlaying(false)
        setStatus(.paused)
    }

    package func sessionResume(reason: String) {
        guard status == .interrupted else { return }
        setStreamsPlaying(true)
        setStatus(.playing)
    }

    package func sessionKeepPaused(reason: String) {
        guard status == .interrupted else { return }
        setStatus(.paused)
    }

    package func setGameMusicMuted(_ muted: Bool) {
        sessionMuted = muted
        applyMute()
    }

    /// Held back arrives through ``setGameMusicMuted(_:)``, with the silent switch.
    package func setHeldBack(_ heldBack: Bool) {}

    package func finishEventStreams() {
        let broadcast = self.broadcast
        if let engine { engine.afterPendingEvents { broadcast.finish() } } else { broadcast.finish() }
    }

    package func beginShutdownFade(at frame: Int64, frames: Int64) {
        output.beginShutdownFade(at: frame, frames: frames)
    }

    package var isAudible: Bool { engine != nil && status == .playing && stream.wantsPlay }
}
