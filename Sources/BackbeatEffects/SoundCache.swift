import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL
import BackbeatSupport
import Dispatch

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The engine's cache of decoded sound effects: a byte budget, background
/// decoding, and least-recently-used eviction of sounds that are not playing.
///
/// On `.offline` and fast `.file` outputs every load is one the engine's
/// render waits for (``AudioEngine/backgroundLoads``), so a cache miss costs
/// wall-clock time, never a late start; on a device it starts late.
///
/// A sound larger than the whole budget fails to load with
/// ``BackbeatError/Code/cacheBudgetExceeded``. When sounds that are playing
/// keep the cache over budget, it stays over until they stop, then evicts.
final class SoundCache: @unchecked Sendable {
    // @unchecked: mutable state is read and written only under the engine lock;
    // decoding runs on `loader` without touching it.
    weak var engine: AudioEngine?
    var budget: Int
    var usedBytes = 0
    var resident: [ObjectIdentifier: Entry] = [:]
    private var useCounter: UInt64 = 0
    let loader = DispatchQueue(label: "Backbeat sound loader", qos: .userInitiated)

    /// A resident sound, held weakly, with what freeing it takes once it is gone.
    struct Entry {
        weak var sound: SoundEffect?
        /// Empty while a replacement device waits for the sound to be uploaded
        /// again: the whole sound's buffer, or a loop's intro, region and tail.
        var buffers: [ALBufferName]
        let bytes: Int
    }

    /// A sound held weakly, across the lock's release.
    private struct Weak: @unchecked Sendable {
        // @unchecked: the sound is only touched under the engine lock, or decoded (immutable origin).
        weak var sound: SoundEffect?
    }

    /// Counts device replacements: an upload started for an older one is stale.
    private var generation: UInt64 = 0
    /// Runs before each decode of a device recovery, outside the lock (tests
    /// make the decode observable with it). Set under the engine lock.
    var decodeObserver: (@Sendable (String) -> Void)?

    init(engine: AudioEngine, budget: Int) {
        self.engine = engine
        self.budget = budget
    }

    // Every method runs with the engine lock held, except the loader's
    // decoding, which touches nothing here.

    /// Marks a sound as just used (for LRU order).
    func touch(_ sound: SoundEffect) {
        useCounter += 1
        sound.lastUse = useCounter
    }

    /// Starts loading `sound` unless it is loaded or loading; `waiter` runs
    /// (outside the lock) once it is resident or has failed.
    func loadLocked(_ sound: SoundEffect, waiter: (@Sendable (Result<Void, BackbeatError>) -> Void)? = nil) {
        guard let engine else { return }
        #if DEBUG
        engine.preconditionLocked()
        #endif
        switch sound.loadState {
        case .loaded:
            if let waiter { engine.postLocked(callback: { waiter(.success(())) }) }
            return
        case .loading:
            if let waiter { sound.preloadWaiters.append(waiter) }
            return
        case .unloaded, .failed:
            if let waiter { sound.preloadWaiters.append(waiter) }
            sound.loadState = .loading
        }
        let budget = budget
        let replacement = sound.replayAsset
        // An offline or fast-file render waits for the load (outside the lock),
        // until its result is applied and its events delivered, so the sound is
        // heard from the frame it was played at whatever the wall clock did.
        let loads = engine.backgroundLoads
        let token = loads.begin()
        loader.async { [weak self, weak sound] in
            defer { if let token { loads.end(token) } }
            guard let sound else { return }
            let result = Result { try sound.decode(budget: budget, replacement: replacement) }.mapError {
                $0 as? BackbeatError ?? BackbeatError(.unreadableFile, operation: "decode", reason: "\($0)")
            }
            self?.finishLoadOnLoader(sound, result)
        }
    }

    /// Makes an in-memory sound resident now.
    func loadResidentLocked(_ sound: SoundEffect, _ decoded: Result<SoundEffect.Decoded, BackbeatError>) {
        #if DEBUG
        engine?.preconditionLocked()
        #endif
        sound.loadState = .loading
        finishLoadLocked(sound, decoded)
    }

    /// Uploads a decoded sound: its whole buffer, or with loop points its
    /// intro, region and tail (then the first name returned is the region's).
    /// Nothing stays allocated when one fails.
    func upload(_ decoded: SoundEffect.Decoded, to device: ALDevice) throws -> (
        ALBufferName, SoundEffect.LoopBuffers?
    ) {
        let pcm = decoded.pcm
        guard let points = decoded.loop else { return (try device.generateBuffer(pcm), nil) }
        var made: [ALBufferName] = []
        do {
            let channels = pcm.format.channelCount
            let samples = pcm.interleavedFloats
            func part(_ from: Int, _ to: Int) throws -> ALBufferName? {
                guard to > from else { return nil }
                let slice = try PCMBuffer(
                    format: pcm.format, floats: Array(samples[(from * channels)..<(to * channels)]))
                let name = try device.generateBuffer(slice)
                made.append(name)
                return name
            }
            let start = Int(points.start)
            let end = Int(points.end)
            let intro = try part(0, start)
            guard let region = try part(start, end) else {
                throw BackbeatError(.invalidLoopPoints, operation: "upload")
            }
            let tail = try part(end, pcm.frameCount)
            return (region, .init(points: points, intro: intro, region: region, tail: tail))
        } catch {
            for name in made { device.deleteBuffer(name) }
            throw error
        }
    }

    private func finishLoadLocked(_ sound: SoundEffect, _ decoded: Result<SoundEffect.Decoded, BackbeatError>) {
        guard let engine else { return }
        #if DEBUG
        engine.preconditionLocked()
        #endif
        let outcome: Result<Void, BackbeatError>
        do {
            let decodedSound = try decoded.get()
            let pcm = decodedSound.pcm
            let bytes = pcm.frameCount * pcm.format.channelCount * pcm.format.bytesPerSample
            guard bytes <= budget else {
                throw BackbeatError(
                    .cacheBudgetExceeded, operation: "load \(sound.name)",
                    reason: "\(bytes) bytes decoded, budget is \(budget) bytes")
            }
            evictLocked(toFit: bytes)
            let (buffer, loop) = try upload(decodedSound, to: engine.device)
            sound.loadState = .loaded(
                .init(
                    buffer: buffer, frames: pcm.frameCount, sampleRate: pcm.format.sampleRate,
                    channels: pcm.format.channelCount, bytes: bytes, format: pcm.format, loop: loop,
                    loopPoints: decodedSound.loop, envelope: decodedSound.envelope))
            usedBytes += bytes
            resident[ObjectIdentifier(sound)] = Entry(
                sound: sound, buffers: loop?.all ?? [buffer], bytes: bytes)
            touch(sound)
            sound.registerFileLocked(decodedSound.fingerprint)
            engine.postLocked(.soundLoaded(sound: sound.name))
            outcome = .success(())
        } catch let error as BackbeatError {
            sound.loadState = .failed(error)
            outcome = .failure(error)
        } catch {
            let wrapped = BackbeatError(.unreadableFile, operation: "load \(sound.name)", reason: "\(error)")
            sound.loadState = .failed(wrapped)
            outcome = .failure(wrapped)
        }
        if case .failure(let error) = outcome { engine.logLoadFailureLocked(of: sound.name, error) }
        let waiters = sound.preloadWaiters
        sound.preloadWaiters.removeAll()
        for waiter in waiters { engine.postLocked(callback: { waiter(outcome) }) }
        engine.voicePoolLocked.soundDidLoad(sound)
    }

    /// Finishes a load on the loader queue, then leaves no OpenAL context
    /// current on its thread: a pool thread may end at any time, and OpenAL
    /// would keep the engine's context alive for it.
    private func finishLoadOnLoader(_ sound: SoundEffect, _ decoded: Result<SoundEffect.Decoded, BackbeatError>) {
        guard let engine else { return }
        engine.withLock { finishLoadLocked(sound, decoded) }
        engine.deliverPendingEvents()
        ALDevice.clearThreadContext()
    }

    /// Evicts least-recently-used sounds that are not playing until `bytes` more fit.
    func evictLocked(toFit bytes: Int) {
        #if DEBUG
        engine?.preconditionLocked()
        #endif
        guard let engine, usedBytes + bytes > budget else { return }
        let pool = engine.voicePoolLocked
        let candidates = resident.values.compactMap(\.sound)
            .filter { pool.activeVoiceCount(of: $0) == 0 }
            .sorted { $0.lastUse < $1.lastUse }
        for sound in candidates where usedBytes + bytes > budget {
            guard case .loaded = sound.loadState else { continue }
            sound.loadState = .unloaded
            forgetLocked(ObjectIdentifier(sound))
            engine.postLocked(.soundEvicted(sound: sound.name))
        }
    }

    /// Starts uploading every resident sound again, on a replacement device
    /// (the old buffers went with the old device). Under the lock, it only
    /// marks them as waiting for their buffer (their voices stay virtual and
    /// keep their place); the decoding runs after the replacement, outside
    /// the lock (``reupload(_:generation:)``).
    func reloadAll() {
        guard let engine else { return }
        generation &+= 1
        var waiting: [Weak] = []
        unpinAllLocked()
        for (id, entry) in resident {
            guard let sound = entry.sound, case .loaded(let old) = sound.loadState else {
                // Gone (its buffer went with the old device), or no longer resident.
                usedBytes -= entry.bytes
                resident[id] = nil
                continue
            }
            resident[id]?.buffers = []
            sound.loadState = .loaded(old.withBuffer(nil, loop: nil))
            waiting.append(Weak(sound: sound))
        }
        guard !waiting.isEmpty else { return }
        let generation = generation
        let sounds = waiting
        engine.afterDeviceReplacementLocked { [weak self] in self?.reupload(sounds, generation: generation) }
    }

    /// Decodes each sound again without the lock, then takes the lock just to
    /// upload it and let its voices sound again. Stops when the engine has
    /// shut down or a later replacement (`generation`) has taken over.
    private func reupload(_ sounds: [Weak], generation: UInt64) {
        for item in sounds {
            guard let engine, let sound = item.sound else { continue }
            let (live, observer) = engine.withLock { (current(generation, engine), decodeObserver) }
            guard live else { return }
            observer?(sound.name)
            let decoded = try? sound.decode()
            let stale = engine.withLock { () -> Bool in
                guard current(generation, engine) else { return true }
                installLocked(decoded, for: sound)
                return false
            }
            engine.deliverPendingEvents()
            if stale { return }
        }
    }

    /// Whether the upload started for `generation` is still the one to do.
    private func current(_ generation: UInt64, _ engine: AudioEngine) -> Bool {
        generation == self.generation && engine.isRunningLocked
    }

    /// Puts a sound decoded again into a buffer on the current device; a
    /// sound that no longer decodes or uploads is unloaded, and reloads (or
    /// fails) on its next play.
    private func installLocked(_ decoded: SoundEffect.Decoded?, for sound: SoundEffect) {
        guard let engine else { return }
        #if DEBUG
        engine.preconditionLocked()
        #endif
        let id = ObjectIdentifier(sound)
        guard let entry = resident[id], entry.buffers.isEmpty, case .loaded(let old) = sound.loadState else { return }
        // The same loop region as before (a file changed meanwhile is reloaded whole).
        if let decoded, decoded.pcm.frameCount == old.frames, decoded.loop == old.loopPoints,
            let (buffer, loop) = try? upload(decoded, to: engine.device)
        {
            sound.loadState = .loaded(old.withBuffer(buffer, loop: loop))
            resident[id]?.buffers = loop?.all ?? [buffer]
        } else {
            sound.loadState = .unloaded
            usedBytes -= entry.bytes
            resident[id] = nil
            // Its voices wait for an ordinary load, which reports what fails.
            if engine.voicePoolLocked.activeVoiceCount(of: sound) > 0 { loadLocked(sound) }
            return
        }
        // Voices of the sound that were started meanwhile start now.
        engine.voicePoolLocked.soundDidLoad(sound)
    }

    /// Frees the buffer of the resident sound `id` names, if it is still resident.
    func forgetLocked(_ id: ObjectIdentifier) {
        #if DEBUG
        engine?.preconditionLocked()
        #endif
        guard let engine, let entry = resident.removeValue(forKey: id) else { return }
        engine.voicePoolLocked.coolFreeSources(holding: entry.buffers)
        for buffer in entry.buffers { engine.device.deleteBuffer(buffer) }
        usedBytes -= entry.bytes
    }
}
