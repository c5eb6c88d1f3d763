#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import BackbeatSupport
import BackbeatOpenAL
import BackbeatMedia
import BackbeatEngine

/// The engine's cache of decoded sound effects: a byte budget, background
/// decoding, and least-recently-used eviction of sounds that are not playing.
///
/// A sound larger than the whole budget fails to load with
/// ``BackbeatError/Code/cacheBudgetExceeded``. When sounds that are playing
/// keep the cache over budget, it stays over until they stop, then evicts.
final class SoundCache: @unchecked Sendable {
    // @unchecked: mutable state is read and written only under the engine lock;
    // decoding runs on `loader` without touching it.
    private weak var engine: AudioEngine?
    var budget: Int
    private(set) var usedBytes = 0
    private var resident: [ObjectIdentifier: Entry] = [:]
    private var useCounter: UInt64 = 0
    private let loader = DispatchQueue(label: "Backbeat sound loader", qos: .userInitiated)

    /// A resident sound, held weakly, with what freeing it takes once it is gone.
    private struct Entry {
        weak var sound: SoundEffect?
        var buffer: ALBufferName
        let bytes: Int
    }

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
        loader.async { [weak self, weak sound] in
            guard let sound else { return }
            let result = Result { try sound.decode(budget: budget) }.mapError {
                $0 as? BackbeatError ?? BackbeatError(.unreadableFile, operation: "decode", reason: "\($0)")
            }
            self?.finishLoadOnLoader(sound, result)
        }
    }

    /// Makes an in-memory sound resident now.
    func loadResidentLocked(_ sound: SoundEffect, _ buffer: PCMBuffer) {
        sound.loadState = .loading
        finishLoadLocked(sound, .success(buffer))
    }

    private func finishLoadLocked(_ sound: SoundEffect, _ decoded: Result<PCMBuffer, BackbeatError>) {
        guard let engine else { return }
        let outcome: Result<Void, BackbeatError>
        do {
            let pcm = try decoded.get()
            let bytes = pcm.frameCount * pcm.format.channelCount * pcm.format.bytesPerSample
            guard bytes <= budget else {
                throw BackbeatError(
                    .cacheBudgetExceeded, operation: "load \(sound.name)",
                    reason: "\(bytes) bytes decoded, budget is \(budget) bytes")
            }
            evictLocked(toFit: bytes)
            let buffer = try engine.device.generateBuffer(pcm)
            sound.loadState = .loaded(
                .init(
                    buffer: buffer, frames: pcm.frameCount, sampleRate: pcm.format.sampleRate,
                    channels: pcm.format.channelCount, bytes: bytes, format: pcm.format))
            usedBytes += bytes
            resident[ObjectIdentifier(sound)] = Entry(sound: sound, buffer: buffer, bytes: bytes)
            touch(sound)
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
        let waiters = sound.preloadWaiters
        sound.preloadWaiters.removeAll()
        for waiter in waiters { engine.postLocked(callback: { waiter(outcome) }) }
        engine.voicePoolLocked.soundDidLoad(sound)
    }

    /// Finishes a load on the loader queue, then leaves no OpenAL context
    /// current on its thread: a pool thread may end at any time, and OpenAL
    /// would keep the engine's context alive for it.
    private func finishLoadOnLoader(_ sound: SoundEffect, _ decoded: Result<PCMBuffer, BackbeatError>) {
        guard let engine else { return }
        engine.withLock { finishLoadLocked(sound, decoded) }
        engine.deliverPendingEvents()
        ALDevice.clearThreadContext()
    }

    /// Evicts least-recently-used sounds that are not playing until `bytes` more fit.
    private func evictLocked(toFit bytes: Int) {
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

    /// Uploads every resident sound again, on a replacement device (the old
    /// buffers went with the old device). A sound that no longer decodes is
    /// unloaded and reloads, or fails, on its next play.
    func reloadAll() {
        guard let engine else { return }
        for (id, entry) in resident {
            guard let sound = entry.sound, case .loaded(let old) = sound.loadState else {
                // Gone (its buffer went with the old device), or no longer resident.
                usedBytes -= entry.bytes
                resident[id] = nil
                continue
            }
            if let pcm = try? sound.decode(), let buffer = try? engine.device.generateBuffer(pcm) {
                sound.loadState = .loaded(
                    .init(
                        buffer: buffer, frames: old.frames, sampleRate: old.sampleRate,
                        channels: old.channels, bytes: old.bytes, format: old.format))
                resident[id]?.buffer = buffer
            } else {
                sound.loadState = .unloaded
                usedBytes -= old.bytes
                resident[id] = nil
            }
        }
    }

    /// Frees the buffer of the resident sound `id` names, if it is still resident.
    func forgetLocked(_ id: ObjectIdentifier) {
        guard let engine, let entry = resident.removeValue(forKey: id) else { return }
        engine.device.deleteBuffer(entry.buffer)
        usedBytes -= entry.bytes
    }
}
