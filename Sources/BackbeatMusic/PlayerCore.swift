#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import BackbeatSupport
import BackbeatMedia
import BackbeatSession
import BackbeatEngine

/// The one core every engine music player holds (``MusicPlayer``,
/// ``QueuePlayer``): the engine it plays on, its streams, its level (volume,
/// fades, the shutdown fade, meters) and its event delivery. Its queue is a
/// `QueueStateMachine` the player holds beside it, whose actions the core
/// performs on a stream.
///
/// The core has no public members: players reach it through
/// ``EngineMusicPlaying``, whose extension gives every engine player the same
/// volume, fade, meter and event API.
public final class PlayerCore<Event: Sendable>: @unchecked Sendable {
    // @unchecked: every mutable member is touched only under the engine lock.

    weak var engine: AudioEngine?
    let sessionPlayerID = SessionPlayerID.next()
    /// The player's streams; the first is the one heard (meters and underruns read it).
    var streams: [AudioStream]
    var level = PlayerLevel()
    private let broadcast = EventBroadcast<Event>(bufferLimit: 1_024)
    /// The event a volume change posts, if the player reports them.
    private let volumeEvent: ((Float) -> Event)?
    /// Whether events are generated only while asked for (``beginGenerating()``).
    private let generatesOnRequest: Bool
    private var generating = 0

    init(engine: AudioEngine, stream: AudioStream, generatesOnRequest: Bool, volumeEvent: ((Float) -> Event)?) {
        self.engine = engine
        streams = [stream]
        self.generatesOnRequest = generatesOnRequest
        self.volumeEvent = volumeEvent
    }

    deinit {
        for stream in streams { stream.close() }
    }

    /// The stream heard now.
    var stream: AudioStream { streams[0] }

    /// Runs `body` under the engine lock, then delivers the events it posted (outside the lock).
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        guard let engine else { return try body() }
        defer { engine.deliverPendingEvents() }
        return try engine.withLock(body)
    }

    // MARK: Events (under the engine lock)

    /// Posts `event` to every handler and stream, outside the lock, in order.
    func post(_ event: Event) {
        guard !generatesOnRequest || generating > 0, let engine else { return }
        let broadcast = self.broadcast
        engine.postLocked(callback: { broadcast.send(event) })
    }

    /// Runs `body` outside the lock, in order with the events.
    func postCallback(_ body: @escaping @Sendable () -> Void) {
        engine?.postLocked(callback: body)
    }

    func beginGenerating() { generating += 1 }
    func endGenerating() { generating = max(0, generating - 1) }

    func observe(_ handler: @escaping @Sendable (Event) -> Void) -> ObservationToken { broadcast.observe(handler) }
    func events() -> AsyncStream<Event> { broadcast.events() }

    func finishEventStreams() {
        let broadcast = self.broadcast
        if let engine { engine.afterPendingEvents { broadcast.finish() } } else { broadcast.finish() }
    }

    // MARK: Level (under the engine lock)

    func setVolume(_ value: Float) {
        if let new = level.setVolume(value), let volumeEvent { post(volumeEvent(new)) }
    }

    func fade(to target: Float, duration: MediaTime, curve: FadeCurve) {
        guard let engine else { return }
        let frames = duration.frames(atSampleRate: engine.sampleRate)
        if let new = level.fade(to: target, at: engine.currentFrameLocked, frames: frames, curve: curve),
            let volumeEvent
        {
            post(volumeEvent(new))
        }
    }

    func fadeOut(duration: MediaTime) {
        guard let engine else { return }
        let frames = max(0, duration.frames(atSampleRate: engine.sampleRate))
        level.beginShutdownFade(at: engine.currentFrameLocked, frames: frames)
    }

    var isMeteringEnabled: Bool {
        get { stream.isMeteringEnabled }
        set {
            for stream in streams { stream.isMeteringEnabled = newValue }
            if !newValue { level.meters.reset() }
        }
    }

    func updateMeters() {
        if stream.isMeteringEnabled { level.meters.update(from: stream) }
    }

    // MARK: The queue's actions (under the engine lock)

    /// Performs what the queue's state machine asked on `stream` (the heard
    /// one by default); `asset` gives each item's file and loop. `play` says
    /// whether a restarted stream plays at once.
    func perform<Key>(
        _ action: QueueStateMachine<Key>.Action, on stream: AudioStream? = nil, play: Bool,
        asset: (Key) -> AudioAsset
    ) {
        let stream = stream ?? self.stream
        func entry(_ e: QueueStateMachine<Key>.Entry) -> StreamEntry {
            let a = asset(e.key)
            return StreamEntry(
                id: e.id, asset: a, startFrame: e.startFrame,
                loop: StreamLoop(points: a.explicitLoopPoints, looping: a.looping))
        }
        switch action {
        case .none:
            break
        case .restart(let current, let upcoming, let rampIn):
            stream.restart(with: [entry(current)] + upcoming.map(entry), rampIn: rampIn)
            if play { stream.setPlaying(true) }
        case .setUpcoming(let upcoming, let current):
            stream.setUpcoming(upcoming.map(entry), current: entry(current))
        case .stop:
            stream.restart(with: [], rampIn: false)
            stream.setPlaying(false)
        }
    }

    /// The frame heard in play `current` (its start frame until the stream reaches it).
    func frame<Key>(in current: QueueStateMachine<Key>.Entry?) -> Int64? {
        guard let current else { return nil }
        if let p = stream.position, p.entry == current.id { return p.frame }
        return current.startFrame
    }
}

/// A music player that plays on an ``AudioEngine`` (``MusicPlayer``,
/// ``QueuePlayer``): its volume, fades, meters and events come from its
/// ``PlayerCore``, the same for each.
public protocol EngineMusicPlaying: MusicPlaying {
    /// The player's core (it has no public members).
    var core: PlayerCore<Event> { get }
}

extension EngineMusicPlaying {
    /// The player's volume, 0...1 (clamped; NaN ignored); setting it cancels a fade.
    public var volume: Float {
        get { core.locked { core.level.volume } }
        set { core.locked { core.setVolume(newValue) } }
    }

    /// Fades the volume to `target` over `duration` of engine time.
    public func fade(to target: Float, duration: MediaTime, curve: FadeCurve = .equalPower) {
        core.locked { core.fade(to: target, duration: duration, curve: curve) }
    }

    /// Fades to silence, equal-power, over `duration`: what engine shutdown
    /// does. The player keeps its state; the fade lasts until shutdown.
    public func fadeOut(duration: MediaTime = MediaTime(seconds: 1)) {
        core.locked { core.fadeOut(duration: duration) }
    }

    /// Whether ``updateMeters()`` measures levels. Default false.
    public var isMeteringEnabled: Bool {
        get { core.locked { core.isMeteringEnabled } }
        set { core.locked { core.isMeteringEnabled = newValue } }
    }

    /// Refreshes the meters from the audio played since the last refresh (after the player's volume).
    public func updateMeters() { core.locked { core.updateMeters() } }

    /// Average power of `channel` (0 left, 1 right) in dB at the last
    /// ``updateMeters()``; -160 is silence, 0 full scale.
    public func averagePower(forChannel channel: Int) -> Float {
        core.locked { core.level.meters.average(forChannel: channel) }
    }

    /// Peak power of `channel` in dB at the last ``updateMeters()``.
    public func peakPower(forChannel channel: Int) -> Float {
        core.locked { core.level.meters.peak(forChannel: channel) }
    }

    /// Underruns so far (always zero on offline outputs).
    public var underrunCount: Int { core.locked { core.stream.underruns } }

    /// Calls `handler` with each event until the returned token is cancelled,
    /// outside the engine lock, where the engine delivers its own events.
    @discardableResult
    public func observe(_ handler: @escaping @Sendable (Event) -> Void) -> ObservationToken {
        core.observe(handler)
    }

    /// A new stream of events from now on; it ends when the engine shuts down.
    /// It keeps the newest 1,024 events its consumer has not read.
    public func events() -> AsyncStream<Event> { core.events() }

    package var sessionPlayerID: SessionPlayerID { core.sessionPlayerID }

    package func finishEventStreams() { core.finishEventStreams() }

    package func beginShutdownFade(at frame: Int64, frames: Int64) {
        core.level.beginShutdownFade(at: frame, frames: frames)
    }
}
