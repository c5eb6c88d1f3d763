import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A short sound decoded once into a shared, cached OpenAL buffer, ready to
/// play many times at once: a footstep, a snare hit, a coin.
///
/// Loading never blocks the caller. ``play(volume:pan:rate:looping:priority:bus:completion:)``
/// on a sound that is not loaded yet starts the load in the background and
/// starts the voice when the load completes (a ``PlaybackEvent/voiceStarted(voice:sound:at:afterLoad:)``
/// event with `afterLoad: true` says so). ``preload()`` loads ahead of time.
/// On `.offline` and fast `.file` outputs the next render waits for the load,
/// so the voice is heard from the frame it was played at, whatever the wall
/// clock did; on a device it starts late.
///
/// The engine's cache keeps decoded sounds within a byte budget
/// (``AudioEngine/effectCacheBudget``) and evicts the least recently used
/// sounds that are not playing.
///
/// ```swift
/// let snare = SoundEffect(contentsOf: url, engine: engine)
/// try await snare.preload()
/// snare.maximumInstances = 4
/// let voice = snare.play(volume: 0.8, pan: -0.3)
/// ```
public final class SoundEffect: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: mutable state is read and written only under the engine lock
    // (checked on every access in debug builds).

    enum Origin {
        case asset(AudioAsset)
        case buffer(PCMBuffer, LoopPoints?)
    }

    /// A decoded sound with the loop region it plays (fitted to its frames; nil: none).
    struct Decoded {
        let pcm: PCMBuffer
        let loop: LoopPoints?
        /// Its level block by block, measured with the decode (off the lock).
        let envelope: LevelEnvelope
        /// The file as it was when decoding began (nil: not a file).
        var fingerprint: FileStamp?

        init(pcm: PCMBuffer, loop: LoopPoints?) {
            self.pcm = pcm
            self.loop = loop
            envelope = LevelEnvelope(pcm)
        }
    }

    /// The buffers of a sound with loop points: the intro (the frames before
    /// the region; nil when the region starts at 0), the region and the tail
    /// (the frames after it; nil when it ends at the end). A looping voice
    /// queues the intro once, then loops the region in place.
    struct LoopBuffers {
        let points: LoopPoints
        let intro: ALBufferName?
        let region: ALBufferName
        let tail: ALBufferName?

        var all: [ALBufferName] { [intro, region, tail].compactMap { $0 } }
    }

    enum LoadState {
        case unloaded
        case loading
        case loaded(Resident)
        case failed(BackbeatError)
    }

    /// A decoded sound in an OpenAL buffer.
    struct Resident {
        /// The whole sound (the loop region's buffer for a sound with loop
        /// points, which voices play as intro, region and tail). Nil while a
        /// replacement device waits for the sound to be uploaded again (its
        /// voices stay virtual, keeping their place, until then).
        let buffer: ALBufferName?
        let frames: Int
        let sampleRate: Int
        let channels: Int
        let bytes: Int
        let format: AudioFormat
        /// The loop region and its buffers; nil for a sound without loop points
        /// (and while `buffer` is nil).
        let loop: LoopBuffers?
        /// The loop region, kept across a device replacement.
        let loopPoints: LoopPoints?
        /// The sound's level block by block, for a monitor's bus meters.
        let envelope: LevelEnvelope

        /// The same sound in `buffer` (and the loop's buffers).
        func withBuffer(_ buffer: ALBufferName?, loop: LoopBuffers?) -> Resident {
            Resident(
                buffer: buffer, frames: frames, sampleRate: sampleRate, channels: channels, bytes: bytes,
                format: format, loop: loop, loopPoints: loopPoints, envelope: envelope)
        }

        /// Frames before the loop region (0 without loop points).
        var introFrames: Int { loopPoints.map { Int($0.start) } ?? 0 }
        /// Frames of one loop: the region, or the whole sound without loop points.
        var cycleFrames: Int { loopPoints.map { Int($0.length) } ?? frames }
        /// Frames after the loop region (0 without loop points).
        var tailFrames: Int { loopPoints.map { frames - Int($0.end) } ?? 0 }
        /// The shortest buffer a voice of this sound queues.
        var shortestSegment: Int {
            [introFrames, cycleFrames, tailFrames].filter { $0 > 0 }.min() ?? frames
        }
    }

    /// The sound's name: its file name, or the name it was given.
    public let name: String
    let origin: Origin
    weak var engine: AudioEngine?

    // The engine-bound state: read and written only under the engine lock,
    // through the checked properties below (the deinitialiser, which has the
    // object to itself, reads `_loadState` directly).
    private var _loadState: LoadState = .unloaded
    private var _lastUse: UInt64 = 0
    private var _lastStartFrame: Int64?
    private var _preloadWaiters: [@Sendable (Result<Void, BackbeatError>) -> Void] = []
    private var _instanceLimit: Int?
    private var _retriggerInterval: MediaTime = .zero
    /// Its id in the capture that last saw it (under the engine lock).
    var captureTag = CaptureTag()
    /// ``reloadsWhenChanged`` as the game set it (nil: follow the engine's monitoring).
    var followsFile: Bool? {
        get {
            preconditionEngineLocked()
            return _followsFile
        }
        set {
            preconditionEngineLocked()
            _followsFile = newValue
        }
    }
    private var _followsFile: Bool?
    /// What a replay decodes instead of the origin, once it replayed a
    /// reload of the sound's file (under the engine lock).
    var replayAsset: AudioAsset? {
        get {
            preconditionEngineLocked()
            return _replayAsset
        }
        set {
            preconditionEngineLocked()
            _replayAsset = newValue
        }
    }
    private var _replayAsset: AudioAsset?
    /// The bank that made the sound, and the sound's key there (set before
    /// the sound is shared): a capture names a bank's sound by them.
    weak var bank: SoundBank?
    var bankKey: String?

    /// Traps, in a debug build, unless the engine lock is held (a sound whose
    /// engine is gone has nothing to check). A release build does nothing.
    @inline(__always)
    private func preconditionEngineLocked(file: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
        engine?.preconditionLocked(file: file, line: line)
        #endif
    }

    /// Where the sound is in the cache, under the engine lock.
    var loadState: LoadState {
        get {
            preconditionEngineLocked()
            return _loadState
        }
        _modify {
            preconditionEngineLocked()
            yield &_loadState
        }
        set {
            preconditionEngineLocked()
            _loadState = newValue
        }
    }

    /// The cache's use counter at the sound's last use, for eviction.
    var lastUse: UInt64 {
        get {
            preconditionEngineLocked()
            return _lastUse
        }
        _modify {
            preconditionEngineLocked()
            yield &_lastUse
        }
        set {
            preconditionEngineLocked()
            _lastUse = newValue
        }
    }

    /// The frame its last voice started at, for ``minimumRetriggerInterval``.
    var lastStartFrame: Int64? {
        get {
            preconditionEngineLocked()
            return _lastStartFrame
        }
        _modify {
            preconditionEngineLocked()
            yield &_lastStartFrame
        }
        set {
            preconditionEngineLocked()
            _lastStartFrame = newValue
        }
    }

    /// Completions waiting for the load under way.
    var preloadWaiters: [@Sendable (Result<Void, BackbeatError>) -> Void] {
        get {
            preconditionEngineLocked()
            return _preloadWaiters
        }
        _modify {
            preconditionEngineLocked()
            yield &_preloadWaiters
        }
        set {
            preconditionEngineLocked()
            _preloadWaiters = newValue
        }
    }

    /// ``maximumInstances``, read under the lock.
    var instanceLimit: Int? {
        get {
            preconditionEngineLocked()
            return _instanceLimit
        }
        _modify {
            preconditionEngineLocked()
            yield &_instanceLimit
        }
        set {
            preconditionEngineLocked()
            _instanceLimit = newValue
        }
    }

    /// ``minimumRetriggerInterval``, read under the lock.
    var retriggerInterval: MediaTime {
        get {
            preconditionEngineLocked()
            return _retriggerInterval
        }
        _modify {
            preconditionEngineLocked()
            yield &_retriggerInterval
        }
        set {
            preconditionEngineLocked()
            _retriggerInterval = newValue
        }
    }

    /// A sound from a file (Ogg Vorbis, WAV, FLAC, AIFF, ...). Nothing is read
    /// until it is preloaded or played; a missing or unreadable file is
    /// reported then. Its `LOOPSTART` tags, if any, are its loop region.
    ///
    /// - Parameters:
    ///   - url: The sound file.
    ///   - engine: The engine that plays it.
    public convenience init(contentsOf url: URL, engine: AudioEngine) {
        self.init(contentsOf: url, loopPoints: nil, engine: engine)
    }

    /// A sound from a file with a loop region set through the API.
    ///
    /// - Parameters:
    ///   - url: the file.
    ///   - loopPoints: a loop region that replaces the file's `LOOPSTART` tags
    ///     (nil keeps them). A looping voice plays the frames before it once,
    ///     then loops the region; a region that does not start inside the
    ///     sound fails the load with ``BackbeatError/Code/invalidLoopPoints``.
    ///   - engine: the engine that plays it.
    public init(contentsOf url: URL, loopPoints: LoopPoints?, engine: AudioEngine) {
        self.name = url.lastPathComponent
        self.origin = .asset(AudioAsset(url: url, loopPoints: loopPoints))
        self.engine = engine
    }

    /// A sound from an asset: a file, encoded bytes in memory, an archive
    /// entry or a game's own byte source. Nothing is read until it is
    /// preloaded or played. The asset's loop points (set on it, else its
    /// file's `LOOPSTART` tags) are the sound's loop region.
    ///
    /// - Parameters:
    ///   - asset: The encoded sound.
    ///   - engine: The engine that plays it.
    public init(asset: AudioAsset, engine: AudioEngine) {
        self.name = asset.url.lastPathComponent
        self.origin = .asset(asset)
        self.engine = engine
    }

    /// A sound from an encoded file's bytes in memory (Ogg Vorbis, WAV, FLAC…).
    ///
    /// - Parameters:
    ///   - data: the encoded bytes.
    ///   - name: the sound's name, in errors too.
    ///   - engine: the engine that plays it.
    public convenience init(data: Data, name: String, engine: AudioEngine) {
        self.init(asset: AudioAsset(data: data, name: name), engine: engine)
    }

    /// A sound from PCM in memory (mono or stereo).
    ///
    /// - Parameters:
    ///   - buffer: The samples, copied into an OpenAL buffer when the sound loads.
    ///   - name: The sound's name in events and logs.
    ///   - engine: The engine that plays it.
    /// - Throws: ``BackbeatError/Code/emptySound`` for a zero-frame buffer,
    ///   ``BackbeatError/Code/unsupportedFormat`` for more than two channels.
    public convenience init(buffer: PCMBuffer, name: String, engine: AudioEngine) throws {
        try self.init(buffer: buffer, name: name, loopPoints: nil, engine: engine)
    }

    /// A sound from PCM in memory (mono or stereo) with a loop region.
    ///
    /// - Parameters:
    ///   - buffer: the samples.
    ///   - name: the sound's name, in errors too.
    ///   - loopPoints: the loop region a looping voice loops after playing the frames before it once (nil: the whole sound).
    ///   - engine: the engine that plays it.
    /// - Throws: ``BackbeatError/Code/emptySound`` for a zero-frame buffer,
    ///   ``BackbeatError/Code/unsupportedFormat`` for more than two channels,
    ///   ``BackbeatError/Code/invalidLoopPoints`` for a region that does not start inside the sound.
    public init(buffer: PCMBuffer, name: String, loopPoints: LoopPoints?, engine: AudioEngine) throws {
        guard buffer.frameCount > 0 else {
            throw BackbeatError(.emptySound, operation: "SoundEffect(buffer:)", reason: "\"\(name)\" has zero frames")
        }
        guard buffer.format.channelCount <= 2 else {
            throw BackbeatError(
                .unsupportedFormat, operation: "SoundEffect(buffer:)",
                reason: "\"\(name)\" has \(buffer.format.channelCount) channels (mono or stereo only)")
        }
        let loop = try loopPoints?.checked(frameCount: Int64(buffer.frameCount), url: nil)
        self.name = name
        self.origin = .buffer(buffer, loop)
        self.engine = engine
        // Nothing to decode: the sound is resident at once (or fails now, and
        // says so on preload and play). Its level is measured off the lock.
        let decoded = Decoded(pcm: buffer, loop: Self.meaningful(loop, frames: buffer.frameCount))
        engine.withLock { engine.effectCacheLocked.loadResidentLocked(self, .success(decoded)) }
        engine.deliverPendingEvents()
    }

    deinit {
        // The last release may come inside a locked section (a voice let go
        // in an update step): free the buffer at the engine's next entry.
        if case .loaded = _loadState, let engine {
            let id = ObjectIdentifier(self)
            engine.performLocked { engine in
                engine.effectCacheLocked.forgetLocked(id)
                engine.fileWatchLocked.unregisterLocked(id)
            }
        }
    }

    public var description: String { "SoundEffect(\(name))" }

    private func locked<T>(_ body: () -> T) -> T {
        guard let engine else { return body() }
        return engine.withLock(body)
    }

    // MARK: Limits

    /// At most this many voices of this sound at once (nil: no limit). A new
    /// voice beyond the limit takes over from the oldest one.
    public var maximumInstances: Int? {
        get { locked { instanceLimit } }
        set {
            locked {
                instanceLimit = newValue.map { max(1, $0) }
                recordSettingLocked(0) { $0.appendOptional(newValue) { $0.append($1) } }
            }
        }
    }

    /// Triggers closer together than this are refused (zero: no limit).
    public var minimumRetriggerInterval: MediaTime {
        get { locked { retriggerInterval } }
        set {
            locked {
                retriggerInterval = newValue < .zero ? .zero : newValue
                recordSettingLocked(1) { EffectsCaptureCoding.encode(newValue, into: &$0) }
            }
        }
    }

    // MARK: Loading

    /// Whether the sound is decoded and resident.
    public var isLoaded: Bool { locked { if case .loaded = loadState { true } else { false } } }

    /// The sound's length, once loaded.
    public var duration: MediaTime? {
        locked {
            guard case .loaded(let r) = loadState else { return nil }
            return MediaTime(frames: Int64(r.frames), sampleRate: r.sampleRate)
        }
    }

    /// The loop region a looping voice loops, once loaded: the one set through
    /// the API, else the file's `LOOPSTART`/`LOOPLENGTH` (or `LOOPEND`) tags,
    /// fitted to the sound. Nil while unloaded, and for a sound without one
    /// (a looping voice then loops the whole sound).
    public var loopPoints: LoopPoints? {
        locked {
            guard case .loaded(let r) = loadState else { return nil }
            return r.loopPoints
        }
    }

    /// Loads the sound in the background; `completion` runs once, when it is
    /// resident or has failed.
    ///
    /// - Parameter completion: Runs once, with success or the error that stopped the load.
    public func preload(completion: @escaping @Sendable (Result<Void, BackbeatError>) -> Void) {
        guard let engine else {
            completion(.failure(BackbeatError(.engineShutDown, operation: "preload")))
            return
        }
        engine.withLock {
            if let id = captureIDLocked(engine) { engine.recordLocked(.effectsSoundPreload) { $0.append(id) } }
            engine.effectCacheLocked.loadLocked(self, waiter: completion)
        }
        engine.deliverPendingEvents()
    }

    /// Loads the sound and returns once it is resident.
    ///
    /// - Throws: the ``BackbeatError`` that stopped the load: the file is
    ///   missing or unreadable, has no frames, or is larger than the cache budget.
    public func preload() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            preload { result in continuation.resume(with: result.mapError { $0 as Error }) }
        }
    }

    /// Decodes the sound whole (off the caller's thread, on the cache's loader).
    /// Effects are short; music streams instead. The budget is checked from
    /// the frame count before anything is allocated, and again as it decodes
    /// (a count can lie), so an hour-long file fails at once, not after
    /// gigabytes.
    ///
    /// - Parameters:
    ///   - budget: The most bytes the decoded sound may take.
    ///   - replacement: What to decode instead of the origin (``replayAsset``, or a reload's bytes).
    func decode(budget: Int = .max, replacement: AudioAsset? = nil) throws -> Decoded {
        switch replacement.map(Origin.asset) ?? origin {
        case .buffer(let buffer, let loop):
            return Decoded(pcm: buffer, loop: Self.meaningful(loop, frames: buffer.frameCount))
        case .asset(let asset):
            let url = asset.url
            // Taken before reading: a file changed during the decode differs, and reloads again.
            let fingerprint = url.isFileURL ? FileStamp(path: url.path) : nil
            let decoder = try AudioDecoders.open(asset)
            defer { decoder.close() }
            guard decoder.channelCount <= 2 else {
                throw BackbeatError(
                    .unsupportedFormat, operation: "SoundEffect", url: url,
                    reason: "\(decoder.channelCount) channels (mono or stereo only)")
            }
            let bytesPerFrame = decoder.channelCount * MemoryLayout<Float>.size
            let claimed = max(0, decoder.frameCount).multipliedReportingOverflow(by: Int64(bytesPerFrame))
            let overBudget = { (what: String) in
                BackbeatError(
                    .cacheBudgetExceeded, operation: "SoundEffect", url: url,
                    reason: "\(what), budget is \(budget) bytes")
            }
            guard !claimed.overflow, claimed.partialValue <= Int64(budget) else {
                throw overBudget("\(decoder.frameCount) frames of \(decoder.channelCount) channels need more")
            }
            var samples: [Float] = []
            samples.reserveCapacity(Int(claimed.partialValue) / MemoryLayout<Float>.size)
            var chunk: [Float] = []
            while try decoder.read(frames: 8_192, into: &chunk) > 0 {
                samples += chunk
                if samples.count > budget / MemoryLayout<Float>.size {
                    throw overBudget("more was decoded than its header said")
                }
            }
            guard !samples.isEmpty else {
                throw BackbeatError(.emptySound, operation: "SoundEffect", url: url, reason: "no frames decoded")
            }
            let pcm = try PCMBuffer(
                format: AudioFormat(sampleRate: decoder.sampleRate, channelCount: decoder.channelCount),
                floats: samples)
            // Fitted to what was decoded (a header's count can lie).
            let frames = Int64(pcm.frameCount)
            let loop =
                try asset.explicitLoopPoints.map { try $0.checked(frameCount: frames, url: url) }
                ?? decoder.readTags().tags.loopPoints?.clamped(toFrameCount: frames)
            var decoded = Decoded(pcm: pcm, loop: Self.meaningful(loop, frames: pcm.frameCount))
            decoded.fingerprint = fingerprint
            return decoded
        }
    }

    /// Loop points that change something: a region of the whole sound is none.
    static func meaningful(_ loop: LoopPoints?, frames: Int) -> LoopPoints? {
        guard let loop, loop.start > 0 || loop.end < Int64(frames) else { return nil }
        return loop
    }

    // MARK: Playing

    /// Plays the sound now and returns its voice. Never throws and never
    /// blocks on decoding: a voice that cannot play is refused and an event
    /// says why.
    ///
    /// - Parameters:
    ///   - volume: 0...1 (clamped; NaN means 1).
    ///   - pan: -1 (left) ... 1 (right) (clamped; NaN means 0). Stereo sounds pan too.
    ///   - rate: playback rate and pitch, 0.5...2 (clamped; NaN means 1).
    ///   - looping: ``Looping/once`` (default), ``Looping/times(_:)`` or ``Looping/forever`` (until stopped).
    ///   - priority: higher wins when sources run out.
    ///   - bus: the bus to play on (default: the engine's effects bus).
    ///   - completion: runs once when the voice ends; `true` when it played to its end.
    @discardableResult
    public func play(
        volume: Float = 1, pan: Float = 0, rate: Float = 1, looping: Looping = .once,
        priority: Int = 0, bus: Bus? = nil,
        completion: (@Sendable (Bool) -> Void)? = nil
    ) -> Voice {
        play(
            at: nil, volume: volume, pan: pan, rate: rate, looping: looping,
            priority: priority, bus: bus, completion: completion)
    }

    /// Plays the sound so that its first frame is heard exactly on `time` in
    /// engine time (Backbeat starts it early by ``AudioEngine/outputLatency``).
    /// A time already past starts now. Use it to quantize hits to a beat.
    ///
    /// `position`, when not nil, places the voice in 3D from its first frame
    /// (as ``Voice/position``; a point with a NaN or infinite coordinate is
    /// ignored and the voice plays 2D, panned by `pan`).
    ///
    /// - Parameters:
    ///   - time: The engine time of the first frame; nil plays now.
    ///   - volume: 0...1 (clamped; NaN means 1).
    ///   - pan: -1 (left) ... 1 (right) for a 2D voice (clamped; NaN means 0).
    ///   - position: Where the voice is in 3D, in metres; nil plays it 2D.
    ///   - rate: Playback rate and pitch, 0.5...2 (clamped; NaN means 1).
    ///   - looping: ``Looping/once`` (default), ``Looping/times(_:)`` or ``Looping/forever`` (until stopped).
    ///   - priority: Higher wins when sources run out.
    ///   - bus: The bus to play on (default: the engine's effects bus).
    ///   - completion: Runs once when the voice ends; `true` when it played to its end.
    /// - Returns: The voice, to change or stop it while it plays.
    @discardableResult
    public func play(
        at time: MediaTime?, volume: Float = 1, pan: Float = 0, position: Audio3DPoint? = nil, rate: Float = 1,
        looping: Looping = .once, priority: Int = 0, bus: Bus? = nil,
        completion: (@Sendable (Bool) -> Void)? = nil
    ) -> Voice {
        let voice = Voice(
            sound: self, volume: volume, pan: pan, rate: rate,
            looping: looping, priority: priority, completion: completion)
        // A new voice has no source, pool or glide: its point is all there is to set.
        if let position, position.isFinite { voice.storedPosition = position }
        guard let engine else {
            voice.finishDetached()
            completion?(false)
            return voice
        }
        engine.withLock {
            // Declared before the start, recorded after it: on a device the
            // play is stamped with the frame the mixer started it on.
            let captureID = captureIDLocked(engine)
            engine.voicePoolLocked.startLocked(voice, at: time, bus: bus ?? engine.effectsBus)
            if let captureID {
                recordPlayLocked(
                    captureID, voice, engine: engine, time: time, volume: volume, pan: pan, position: position,
                    rate: rate, looping: looping, priority: priority, bus: bus)
            }
        }
        engine.deliverPendingEvents()
        return voice
    }
}
