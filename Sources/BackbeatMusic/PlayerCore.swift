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

/// The one core every engine music player holds (``MusicPlayer``,
/// ``QueuePlayer``, ``AdaptiveMusicPlayer``): the engine it plays on, its
/// streams, its level (volume, fades, the shutdown fade, meters) and its event
/// delivery. A queue player's queue is a `QueueStateMachine` the player
/// holds beside it, whose actions the core performs on a stream.
///
/// The players' public volume, fade, meter and event members forward here;
/// the session and the engine's shutdown reach it through ``EngineMusicPlaying``.
package final class PlayerCore<Event: Sendable>: @unchecked Sendable {
    // @unchecked: every mutable member is touched only under the engine lock.

    weak var engine: AudioEngine?
    let sessionPlayerID = SessionPlayerID.next()
    /// The player's streams; the first is the one heard, unless ``hearsEveryStream``.
    var streams: [AudioStream]
    /// Whether every stream may be heard at once (the adaptive player's stems
    /// and stingers): the meters and the underrun count then take them all.
    let hearsEveryStream: Bool
    var level = PlayerLevel()
    /// Muted by the game (``QueuePlayer/isMuted``), and by the session (the
    /// silent switch, other audio in an ambient session): silent, time running.
    var userMuted = false {
        didSet { applyMute() }
    }
    var sessionMuted = false {
        didSet { applyMute() }
    }
    private var metering = false
    private let broadcast = EventBroadcast<Event>(bufferLimit: 1_024)
    /// The event a volume change posts, if the player reports them.
    private let volumeEvent: ((Float) -> Event)?
    /// Whether events are generated only while asked for (``beginGenerating()``).
    private let generatesOnRequest: Bool
    private var generating = 0

    init(
        engine: AudioEngine, streams: [AudioStream], hearsEveryStream: Bool = false, generatesOnRequest: Bool,
        volumeEvent: ((Float) -> Event)?
    ) {
        self.engine = engine
        self.streams = streams
        self.hearsEveryStream = hearsEveryStream
        self.generatesOnRequest = generatesOnRequest
        self.volumeEvent = volumeEvent
    }

    /// The player's id in the capture that declared it (under the engine
    /// lock): the player going away stops its music, which that capture records.
    var captureTag = CaptureTag()

    deinit {
        for stream in streams { stream.close() }
        // The streams close at the engine's next entry: the release is recorded there too.
        let tag = captureTag
        if tag.generation != 0, let engine {
            engine.performLocked { engine in
                guard engine.captureRecorder?.generation == tag.generation else { return }
                engine.recordLocked(.musicPlayerReleased) { $0.append(tag.id) }
            }
        }
    }

    /// The stream heard now (players of one heard stream only).
    var stream: AudioStream { streams[0] }

    /// The streams the meters and the underrun count read.
    private var heardStreams: ArraySlice<AudioStream> { hearsEveryStream ? streams[...] : streams.prefix(1) }

    /// Takes `stream` into the player's streams, metered and muted as the others are.
    func adopt(_ stream: AudioStream) {
        stream.isMeteringEnabled = metering
        stream.isMuted = userMuted || sessionMuted
        streams.append(stream)
    }

    private func applyMute() {
        for stream in streams { stream.isMuted = userMuted || sessionMuted }
    }

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

    func finishEventStreams() {
        let broadcast = self.broadcast
        if let engine { engine.afterPendingEvents { broadcast.finish() } } else { broadcast.finish() }
    }

    // MARK: Level (under the engine lock)

    func setVolumeLocked(_ value: Float) {
        #if DEBUG
        engine?.preconditionLocked()
        #endif
        if let new = level.setVolume(value), let volumeEvent { post(volumeEvent(new)) }
    }

    func fadeLocked(to target: Float, duration: MediaTime, curve: FadeCurve) {
        guard let engine else { return }
        #if DEBUG
        engine.preconditionLocked()
        #endif
        let frames = duration.frames(atSampleRate: engine.sampleRate)
        if let new = level.fade(to: target, at: engine.currentFrameLocked, frames: frames, curve: curve),
            let volumeEvent
        {
            post(volumeEvent(new))
        }
    }

    func fadeOutLocked(duration: MediaTime) {
        guard let engine else { return }
        #if DEBUG
        engine.preconditionLocked()
        #endif
        let frames = max(0, duration.frames(atSampleRate: engine.sampleRate))
        level.beginShutdownFade(at: engine.currentFrameLocked, frames: frames)
    }

    var isMeteringEnabledLocked: Bool {
        get {
            #if DEBUG
            engine?.preconditionLocked()
            #endif
            return metering
        }
        set {
            #if DEBUG
            engine?.preconditionLocked()
            #endif
            metering = newValue
            for stream in streams { stream.isMeteringEnabled = newValue }
            if !newValue { level.meters.reset() }
        }
    }

    func updateMetersLocked() {
        #if DEBUG
        engine?.preconditionLocked()
        #endif
        if metering { level.meters.update(from: heardStreams) }
    }

    // MARK: What the players' public members forward to (each takes the lock)

    var volume: Float {
        get { locked { level.volume } }
        set { locked { setVolumeLocked(newValue) } }
    }

    func fade(to target: Float, duration: MediaTime, curve: FadeCurve) {
        locked { fadeLocked(to: target, duration: duration, curve: curve) }
    }

    func fadeOut(duration: MediaTime) { locked { fadeOutLocked(duration: duration) } }

    var isMeteringEnabled: Bool {
        get { locked { isMeteringEnabledLocked } }
        set { locked { isMeteringEnabledLocked = newValue } }
    }

    func updateMeters() { locked { updateMetersLocked() } }
    func averagePower(forChannel channel: Int) -> Float { locked { level.meters.average(forChannel: channel) } }
    func peakPower(forChannel channel: Int) -> Float { locked { level.meters.peak(forChannel: channel) } }
    var underrunCount: Int { locked { heardStreams.reduce(0) { $0 + $1.underruns } } }
    func observe(_ handler: @escaping @Sendable (Event) -> Void) -> ObservationToken { broadcast.observe(handler) }
    func events() -> AsyncStream<Event> { broadcast.events() }

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
/// ``QueuePlayer``, ``AdaptiveMusicPlayer``): what the audio session and the
/// engine's shutdown ask of it comes from its ``PlayerCore``, the same for each.
package protocol EngineMusicPlaying: AnyObject {
    /// What the player reports.
    associatedtype Event: Sendable
    /// The player's core.
    var core: PlayerCore<Event> { get }
}

extension EngineMusicPlaying {
    package var sessionPlayerID: SessionPlayerID { core.sessionPlayerID }

    package func finishEventStreams() { core.finishEventStreams() }

    package func beginShutdownFade(at frame: Int64, frames: Int64) {
        core.engine?.preconditionLocked()
        core.level.beginShutdownFade(at: frame, frames: frames)
    }
}
