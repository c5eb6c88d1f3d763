import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

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
public final class QueuePlayer: @unchecked Sendable, MusicPlaying, SessionMusicPlayer, EngineMusicPlaying {
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

    package let core: PlayerCore<Event>
    package var isGameMusic: Bool { true }

    /// The queue (the current item first), the plan, and looping as repeat-all.
    var machine = QueueStateMachine<PlayerItem>(consumesPlayed: true, planDepth: 2, planLimit: 2)
    /// The stream fading out in a crossfade, and the per-stream crossfade gains, keyed by stream identity.
    private var outgoing: AudioStream?
    private var crossfadeGains: [ObjectIdentifier: Fade] = [:]
    private var crossfadeFrames: Int64 = 0
    /// The current item's length in stream frames, once it started.
    private var currentFrameCount: Int64?
    var status: TimeControlStatus = .paused
    private var action: ActionAtItemEnd = .advance
    /// An item that ended with action `.none`: the player rests at its end.
    private var restingAtEnd = false
    /// The player's id in the capture that last saw it (QueuePlayer+Capture.swift).
    var captureTag = CaptureTag()

    /// A player for `items`, on `engine`'s music bus.
    ///
    /// - Parameters:
    ///   - engine: The engine it plays on.
    ///   - items: The queue, the first item current; an item given twice is kept once.
    /// - Throws: ``BackbeatError`` with ``BackbeatError/Code/openAL`` when the
    ///   device has no source left for a stream, or
    ///   ``BackbeatError/Code/engineShutDown``.
    public init(engine: AudioEngine, items: [PlayerItem] = []) throws {
        MusicAssetFingerprints.prefetch(items.map(\.asset), engine: engine)
        let stream = try engine.withLock {
            try engine.checkUsable("QueuePlayer.init")
            return try AudioStream(engine: engine)
        }
        core = PlayerCore(engine: engine, streams: [stream], generatesOnRequest: false, volumeEvent: nil)
        engine.withLock {
            var seen = Set<PlayerItem>()
            _ = machine.setQueue(items.filter { seen.insert($0).inserted })
            configure(stream)
            engine.registerMusicPlayerLocked(self)
            engine.addTelemetryContributorLocked(self)
            _ = captureIDLocked()
        }
    }

    private var engine: AudioEngine? { core.engine }
    /// The stream playing the current item.
    var stream: AudioStream { core.stream }
    /// The second stream a crossfade needs (made on first use).
    private var spareStream: AudioStream? { core.streams.count > 1 ? core.streams[1] : nil }

    private func configure(_ stream: AudioStream) {
        // Weak: the engine may run an update while the player is being released.
        stream.gain = { [weak self, weak stream] frame in
            guard let self, let stream else { return 0 }
            return self.core.level.gain(at: frame)
                * (self.crossfadeGains[ObjectIdentifier(stream)]?.gain(at: frame) ?? 1)
        }
        stream.onEvent = { [weak self, weak stream] event in
            guard let self, let stream else { return }
            if stream === self.stream { self.handle(event) } else { self.handleOutgoing(event, from: stream) }
        }
        stream.onPlanExhausted = { [weak self, weak stream] in
            if let self, stream === self.stream { self.perform(self.machine.extendPlan()) }
        }
        stream.onUpdate = { [weak self, weak stream] frame in
            if let self, stream === self.stream { self.checkCrossfade(at: frame) }
        }
        stream.onUpdateDue = { [weak self, weak stream] frame in
            guard let self, stream === self.stream else { return nil }
            return self.crossfadeDue(after: frame)
        }
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T { try core.locked(body) }

    // MARK: Events

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

    // MARK: Queue

    /// The items, the current one first.
    public func items() -> [PlayerItem] { locked { machine.keys } }

    /// The item playing (or paused), nil when the queue is empty.
    public var currentItem: PlayerItem? { locked { machine.currentKey } }

    /// Whether ``insert(_:after:)`` would accept `item` after `afterItem`.
    ///
    /// - Parameters:
    ///   - item: The item to insert.
    ///   - afterItem: The item it would follow; nil for the end of the queue.
    /// - Returns: Whether `item` is not in the queue yet and `afterItem` is.
    public func canInsert(_ item: PlayerItem, after afterItem: PlayerItem?) -> Bool {
        locked { canInsertLocked(item, after: afterItem) }
    }

    private func canInsertLocked(_ item: PlayerItem, after afterItem: PlayerItem?) -> Bool {
        #if DEBUG
        engine?.preconditionLocked()
        #endif
        return !machine.keys.contains(item) && (afterItem.map { machine.keys.contains($0) } ?? true)
    }

    /// Inserts `item` after `afterItem`, or at the end when `afterItem` is nil.
    ///
    /// - Parameters:
    ///   - item: The item to insert.
    ///   - afterItem: The item it follows; nil for the end of the queue.
    /// - Throws: ``BackbeatError/Code/invalidArgument`` when `item` is already
    ///   in the queue or `afterItem` is not.
    public func insert(_ item: PlayerItem, after afterItem: PlayerItem?) throws {
        MusicAssetFingerprints.prefetch([item.asset], engine: engine)
        try locked {
            guard canInsertLocked(item, after: afterItem) else {
                let reason =
                    machine.keys.contains(item)
                    ? "\(item) is already in the queue" : "\(afterItem!) is not in the queue"
                throw BackbeatError(.invalidArgument, operation: "QueuePlayer.insert", url: item.url, reason: reason)
            }
            perform(machine.insert(item, after: afterItem))
            recordInsertLocked(item, after: afterItem)
        }
    }

    /// Removes `item`. Removing the current item moves to the next; removing
    /// an item that is not in the queue does nothing.
    ///
    /// - Parameter item: The item to remove.
    public func remove(_ item: PlayerItem) {
        locked {
            recordItemLocked(.queueRemove, item)
            let wasCurrent = item == machine.currentKey
            let next = machine.remove(item)
            if wasCurrent { currentChanged() }
            perform(next)
        }
    }

    /// Empties the queue and stops.
    public func removeAllItems() {
        locked {
            record(.queueRemoveAll)
            guard !machine.keys.isEmpty else { return }
            let next = machine.setQueue([])
            currentChanged()
            perform(next)
        }
    }

    /// Ends the current item now and moves to the next (with ``loopsQueue``,
    /// the current item goes to the back of the queue).
    public func skipToNextItem() {
        locked {
            record(.musicSkipNext)
            guard machine.currentKey != nil else { return }
            let next = machine.advance(skipping: true, reusePlan: false)
            currentChanged()
            perform(next)
        }
    }

    /// What happens when an item ends; default ``ActionAtItemEnd/advance``.
    public var actionAtItemEnd: ActionAtItemEnd {
        get { locked { action } }
        set {
            locked {
                action = newValue
                planAhead()
                recordActionLocked(newValue)
            }
        }
    }

    /// When true, an item that ends goes to the back of the queue instead of
    /// leaving it, so the queue plays round and round. Default false.
    public var loopsQueue: Bool {
        get { locked { machine.repeatMode == .all } }
        set {
            locked {
                perform(machine.setRepeatMode(newValue ? .all : .none))
                record(.queueLoops) { $0.append(newValue) }
            }
        }
    }

    // MARK: Transport

    /// Plays from the current position. With an empty queue it does nothing
    /// (``timeControlStatus`` stays ``TimeControlStatus/paused``).
    public func play() {
        // An interruption that began and never ended must not wedge the game:
        // asking to play ends it (the session decides; it is a no-op otherwise).
        engine?.session.playRequested(by: core.sessionPlayerID)
        locked {
            record(.musicPlay)
            guard !machine.keys.isEmpty else { return }
            if restingAtEnd {
                // Action `.none` left it at the end of an item: play the next.
                advanceAfterEnd()
            }
            if machine.current == nil { perform(machine.start(at: 0)) }
            setStreamsPlaying(true)
            setStatus(.playing)
        }
    }

    /// Pauses where it is.
    public func pause() {
        locked {
            record(.musicPause)
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
            return MediaTime(frames: core.frame(in: machine.current) ?? 0, sampleRate: engine.sampleRate)
        }
    }

    /// Moves to `time` in the current item, sample-accurately. Times below
    /// zero clamp to zero; a time at or beyond the item's end ends the item
    /// (the queue moves on as if it had played through). Without a current
    /// item it does nothing.
    ///
    /// - Parameter time: The position in the current item.
    public func seek(to time: MediaTime) {
        locked {
            record(.musicSeek) { EngineCaptureValues.encode(time, into: &$0) }
            guard let engine, !machine.keys.isEmpty else { return }
            perform(machine.start(at: max(0, time.frames(atSampleRate: engine.sampleRate, rounding: .nearest))))
        }
    }

    // MARK: Volume, mute, meters and buffers

    /// Silences the player without stopping time.
    public var isMuted: Bool {
        get { locked { core.userMuted } }
        set {
            locked {
                core.userMuted = newValue
                record(.queueMute) { $0.append(newValue) }
            }
        }
    }

    /// Bytes of PCM the player's stream holds now (audio queued on OpenAL and
    /// decoded chunks waiting). It never exceeds a fixed bound of about half a
    /// second of stereo Float32, whatever the song's length.
    public var streamBufferBytes: Int { locked { stream.bufferedBytes } }

    /// Underruns so far (always zero on offline outputs).
    public var underrunCount: Int { core.underrunCount }

    /// Peak power of a channel in dB at the last ``updateMeters()``.
    ///
    /// - Parameter channel: 0 for left, 1 for right; any other channel reads -160.
    /// - Returns: The peak power in dB.
    public func peakPower(forChannel channel: Int) -> Float { core.peakPower(forChannel: channel) }

    /// Average power of a channel in dB at the last ``updateMeters()``; -160 is silence, 0 full scale.
    ///
    /// - Parameter channel: 0 for left, 1 for right; any other channel reads -160.
    /// - Returns: The average power in dB.
    public func averagePower(forChannel channel: Int) -> Float { core.averagePower(forChannel: channel) }

    /// Refreshes the meters from the audio played since the last refresh (after the player's volume).
    public func updateMeters() { core.updateMeters() }

    /// Whether ``updateMeters()`` measures levels. Default false.
    public var isMeteringEnabled: Bool {
        get { core.isMeteringEnabled }
        set { core.isMeteringEnabled = newValue }
    }

    /// Fades to silence, equal-power, over `duration`: what engine shutdown
    /// does. The player keeps its state; the fade lasts until shutdown.
    ///
    /// - Parameter duration: How long the fade takes, in engine time; 1 s by default.
    public func fadeOut(duration: MediaTime = MediaTime(seconds: 1)) { locked { applyFadeOutLocked(duration) } }

    /// Fades the volume to `target` over `duration` of engine time.
    ///
    /// - Parameters:
    ///   - target: The volume to reach, 0...1 (clamped; NaN ignored).
    ///   - duration: How long the fade takes, in engine time.
    ///   - curve: The fade's shape; equal-power by default.
    public func fade(to target: Float, duration: MediaTime, curve: FadeCurve = .equalPower) {
        locked { applyFadeLocked(to: target, duration: duration, curve: curve) }
    }

    /// The player's volume, 0...1 (clamped; NaN ignored); setting it cancels a fade.
    public var volume: Float {
        get { core.volume }
        set { locked { applyVolumeLocked(newValue) } }
    }

    // MARK: Internals (under the engine lock)

    private func setStatus(_ new: TimeControlStatus) {
        guard new != status else { return }
        status = new
        core.post(.timeControlStatusChanged(new))
    }

    private func currentChanged() {
        restingAtEnd = false
        core.post(.currentItemChanged(machine.currentKey))
    }

    private func setStreamsPlaying(_ play: Bool) {
        stream.setPlaying(play)
        outgoing?.setPlaying(play)
    }

    /// Plans two items ahead while items advance gaplessly; none when an item's
    /// end pauses or rests, or when the next item starts on the other stream (a crossfade).
    private func planAhead() {
        let depth = action == .advance && crossfadeFrames == 0 ? 2 : 0
        perform(machine.setPlanDepth(depth, limit: depth))
    }

    /// Performs the queue's action on the current stream. A restart (or an
    /// empty queue) ends any crossfade and rest at an item's end; an empty queue pauses.
    private func perform(_ next: QueueStateMachine<PlayerItem>.Action) {
        switch next {
        case .restart, .stop:
            restingAtEnd = false
            currentFrameCount = nil
            cancelCrossfade()
        case .none, .setUpcoming:
            break
        }
        core.perform(next, play: false, asset: \.asset)
        if case .stop = next {
            setStreamsPlaying(false)
            setStatus(.paused)
        }
    }

    private func handle(_ event: StreamEvent) {
        switch event {
        case .deviceReplaced(let position):
            // Carry on from where the lost device was heard, or, when nothing
            // was heard there since the stream last (re)started (it stayed
            // paused on a stand-in device), from where it (re)started.
            if let current = machine.current {
                perform(
                    machine.start(
                        at: position.flatMap { $0.entry == current.id ? $0.frame : nil } ?? current.startFrame))
            }
            setStreamsPlaying(status == .playing)
        case .started(let entry, let frameCount):
            guard let engine, let item = machine.key(forEntry: entry) else { return }
            item.markReady(frameCount: frameCount, sampleRate: engine.sampleRate)
            if machine.isCurrent(entry) { currentFrameCount = frameCount }
        case .ended(let entry):
            // Only the current entry can end, and only once: a second end for
            // the same entry (or one for an entry already left) is ignored.
            guard machine.isCurrent(entry), let finished = machine.currentKey else { return }
            core.post(.itemDidPlayToEnd(finished))
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
            guard let item = machine.key(forEntry: entry) else { return }
            item.markFailed(error)
            core.post(.itemFailed(item, error))
            // A failed current play never started (or stops here): the stream already moved on to the plan.
            let wasCurrent = machine.isCurrent(entry)
            let next = machine.entryFailed(entry, load: status == .playing)
            if wasCurrent { currentChanged() }
            perform(next)
        case .underrun(let total):
            core.post(.underrun(total: total))
        case .drained:
            if restingAtEnd {
                setStatus(.paused)
                return
            }
            if machine.keys.isEmpty || machine.current == nil {
                setStreamsPlaying(false)
                setStatus(.paused)
            }
        }
    }

    /// The current item ended: move it out (or to the back), and make the next current.
    private func advanceAfterEnd() {
        restingAtEnd = false
        guard !machine.keys.isEmpty else { return }
        let next = machine.advance()
        currentChanged()
        perform(next)
    }

    // MARK: Crossfade (under the engine lock)

    /// Crossfades into the next item over `duration`, on a second stream, equal-power;
    /// zero (the default) plays items gaplessly instead. Negative values count as zero.
    ///
    /// - Parameter duration: How long the two items overlap; zero for gapless.
    /// - Throws: ``BackbeatError/Code/openAL`` when the device has no source left for the second stream.
    public func setCrossfadeDuration(_ duration: MediaTime) throws {
        try locked {
            guard let engine else { return }
            let frames = max(0, duration.frames(atSampleRate: engine.sampleRate))
            if frames > 0, spareStream == nil {
                let spare = try AudioStream(engine: engine)
                configure(spare)
                core.adopt(spare)
            }
            crossfadeFrames = frames
            planAhead()
            record(.queueCrossfade) { EngineCaptureValues.encode(duration, into: &$0) }
        }
    }

    /// The crossfade between items; zero when items play gaplessly.
    public var crossfadeDuration: MediaTime {
        locked { MediaTime(frames: crossfadeFrames, sampleRate: engine?.sampleRate ?? 48_000) }
    }

    /// On the current stream's update: start the crossfade when the item is that close to its end.
    /// When ``checkCrossfade(at:)`` may start a crossfade: the engine frame
    /// the current item comes within the crossfade of its end (it plays at
    /// the engine's rate); nil when no crossfade can start.
    private func crossfadeDue(after frame: Int64) -> Int64? {
        guard crossfadeFrames > 0, action == .advance, outgoing == nil, status == .playing,
            let current = machine.current, let length = currentFrameCount
        else { return nil }
        guard let position = stream.position, position.entry == current.id else { return frame }
        return frame + max(0, length - position.frame - crossfadeFrames)
    }

    private func checkCrossfade(at frame: Int64) {
        guard crossfadeFrames > 0, action == .advance, outgoing == nil, status == .playing,
            let current = machine.current, let finished = machine.currentKey, let length = currentFrameCount,
            let position = stream.position, position.entry == current.id,
            length - position.frame <= crossfadeFrames,
            machine.keys.count > 1 || machine.repeatMode == .all, let spare = spareStream
        else { return }
        let fadeFrames = max(1, min(crossfadeFrames, length - position.frame))
        let next = machine.advance(reusePlan: false)
        core.post(.itemDidPlayToEnd(finished))
        let old = stream
        core.streams = [spare, old]
        outgoing = old
        crossfadeGains[ObjectIdentifier(old)] = Fade(
            from: 1, to: 0, startFrame: frame, frames: fadeFrames, curve: .equalPower)
        crossfadeGains[ObjectIdentifier(spare)] = Fade(
            from: 0, to: 1, startFrame: frame, frames: fadeFrames, curve: .equalPower)
        currentChanged()
        currentFrameCount = nil
        core.perform(next, on: spare, play: true, asset: \.asset)
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
        core.sessionMuted = muted
    }

    /// Held back arrives through ``setGameMusicMuted(_:)``, with the silent switch.
    package func setHeldBack(_ heldBack: Bool) {}

    package var isAudible: Bool { engine != nil && status == .playing && stream.wantsPlay }
}
