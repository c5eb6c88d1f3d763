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

/// A sound whose file changed while the game runs: decoded again off the
/// lock, then swapped in (``replaceLocked(_:with:)``) so that the next play
/// is the new sound while the voices playing carry on on the old buffers,
/// which are freed when the last of them ends.
extension SoundCache {
    /// Decodes `sound`'s file again on the loader and swaps it in; a file
    /// that no longer decodes keeps the old sound. An offline render waits
    /// for it, as for a load.
    ///
    /// - Parameters:
    ///   - sound: A sound decoded from a file.
    ///   - done: Called once, with the lock held, with the swap's outcome.
    func reloadLocked(_ sound: SoundEffect, done: @escaping @Sendable (Result<Void, BackbeatError>) -> Void) {
        guard let engine else { return }
        engine.preconditionLocked()
        // A capture keeps the file as it is decoded (or, not resident, as the
        // next play will find it), so that a replay hears the same version.
        let captured = sound.captureTargetLocked(engine) != nil ? sound.fileURL : nil
        let resident: Bool
        if case .loaded = sound.loadState { resident = true } else { resident = false }
        guard resident || captured != nil else {
            // Nothing resident: the next play decodes the file as it is then.
            if case .failed = sound.loadState { sound.loadState = .unloaded }
            done(.success(()))
            return
        }
        let budget = budget
        let loads = engine.backgroundLoads
        let token = loads.begin()
        let target = WeakSound(sound: sound)
        loader.async { [weak self, weak engine] in
            defer { if let token { loads.end(token) } }
            guard let self, let engine, let sound = target.sound else { return }
            let file = captured.flatMap { try? FileFingerprint.read($0, keepingAtMost: CapturedFile.largestKept) }
            // Decoded from the bytes kept, when kept: what is heard is what the capture holds.
            let replacement = file?.bytes.map { sound.asset(replacing: Data($0)) }
            let decoded =
                resident
                ? Result { try sound.decode(budget: budget, replacement: replacement) }.mapError {
                    $0 as? BackbeatError ?? BackbeatError(.unreadableFile, operation: "decode", reason: "\($0)")
                }.map(Optional.some) : .success(nil)
            engine.withLock {
                let outcome = decoded.flatMap { decoded -> Result<Void, BackbeatError> in
                    do throws(BackbeatError) {
                        if let decoded {
                            try self.replaceLocked(sound, with: decoded)
                        } else if case .failed = sound.loadState {
                            sound.loadState = .unloaded
                        }
                        return .success(())
                    } catch {
                        return .failure(error)
                    }
                }
                if case .success = outcome, let file {
                    sound.recordReloadLocked(engine, CapturedFile(fingerprint: file.fingerprint, bytes: file.bytes))
                }
                done(outcome)
            }
            engine.deliverPendingEvents()
            ALDevice.clearThreadContext()
        }
    }

    /// Where a reloaded sound takes effect: `decoded` becomes the sound's
    /// buffer for every play from now on; each voice that has started on
    /// the old buffer is pinned to it and finishes on it, and the old
    /// buffer is freed when the last of them ends (at once when none
    /// plays). A sound that is not resident just forgets what it had.
    ///
    /// - Parameters:
    ///   - sound: The sound whose file changed.
    ///   - decoded: Its file decoded again.
    /// - Throws: ``BackbeatError/Code/cacheBudgetExceeded`` for a new sound
    ///   larger than the budget, an OpenAL error from the upload; the old
    ///   sound then stays.
    func replaceLocked(_ sound: SoundEffect, with decoded: SoundEffect.Decoded) throws(BackbeatError) {
        guard let engine else { throw BackbeatError(.engineShutDown, operation: "reload \(sound.name)") }
        engine.preconditionLocked()
        let id = ObjectIdentifier(sound)
        guard case .loaded(let old) = sound.loadState, let entry = resident[id], !entry.buffers.isEmpty else {
            if case .loading = sound.loadState { return }
            sound.loadState = .unloaded
            return
        }
        let pcm = decoded.pcm
        let bytes = pcm.frameCount * pcm.format.channelCount * pcm.format.bytesPerSample
        guard bytes <= budget else {
            throw BackbeatError(
                .cacheBudgetExceeded, operation: "reload \(sound.name)",
                reason: "\(bytes) bytes decoded, budget is \(budget) bytes")
        }
        let made: (ALBufferName, SoundEffect.LoopBuffers?)
        do {
            made = try upload(decoded, to: engine.device)
        } catch let error as BackbeatError {
            throw error
        } catch {
            throw BackbeatError(.openAL, operation: "reload \(sound.name)", reason: "\(error)")
        }
        let (buffer, loop) = made
        resident[id] = nil
        let retired = RetiredSound(resident: old, buffers: entry.buffers, bytes: entry.bytes)
        let pool = engine.voicePoolLocked
        for case let voice? in pool.table.elements
        where voice.sound === sound && voice.record.pinned == nil && voice.hasStartedPlaying {
            voice.record.pinned = retired
            retired.voices += 1
        }
        if retired.voices == 0 { freeLocked(retired) }
        sound.loadState = .loaded(
            .init(
                buffer: buffer, frames: pcm.frameCount, sampleRate: pcm.format.sampleRate,
                channels: pcm.format.channelCount, bytes: bytes, format: pcm.format, loop: loop,
                loopPoints: decoded.loop, envelope: decoded.envelope))
        evictLocked(toFit: bytes)
        usedBytes += bytes
        resident[id] = Entry(sound: sound, buffers: loop?.all ?? [buffer], bytes: bytes)
        touch(sound)
    }

    /// A voice pinned to `retired` ended: frees its buffers after the last.
    ///
    /// - Parameter retired: The old sound the voice played.
    func releaseLocked(_ retired: RetiredSound) {
        retired.voices -= 1
        if retired.voices <= 0 { freeLocked(retired) }
    }

    private func freeLocked(_ retired: RetiredSound) {
        guard let engine, !retired.isFreed else { return }
        retired.isFreed = true
        engine.voicePoolLocked.coolFreeSources(holding: retired.buffers)
        for buffer in retired.buffers { engine.device.deleteBuffer(buffer) }
        usedBytes -= retired.bytes
    }

    /// The device is being replaced: its buffers go with it, old ones too,
    /// so every pinned voice plays its sound's current buffer from now on.
    func unpinAllLocked() {
        guard let engine, let pool = engine.existingEffectsLocked?.pool else { return }
        for case let voice? in pool.table.elements {
            guard let retired = voice.record.pinned else { continue }
            voice.record.pinned = nil
            if !retired.isFreed {
                retired.isFreed = true
                usedBytes -= retired.bytes
            }
        }
    }

    /// A sound held weakly across the loader's hop.
    private struct WeakSound: @unchecked Sendable {
        // @unchecked: the sound is touched only under the engine lock, or decoded (immutable origin).
        weak var sound: SoundEffect?
    }
}

extension Voice {
    /// Whether the voice has begun on its sound's buffer (holds a source, or
    /// plays, pauses, fades out or counts time virtually): a reload leaves
    /// it on the old buffer. With the engine lock held.
    var hasStartedPlaying: Bool {
        if record.source != nil { return true }
        switch phase {
        case .playing, .pausing, .paused, .stopping, .virtual: return true
        case .waitingForLoad, .scheduled, .waitingForSource, .finished: return false
        }
    }
}
