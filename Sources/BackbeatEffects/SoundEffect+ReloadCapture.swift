import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A sound reload in a capture (``CaptureKind/reloadSound``): written where
/// the reload takes effect, and applied by a replay at the same point.
extension SoundEffect {
    /// How a capture names the sound in a reload record: by its own id, or,
    /// a sound of a bank, by the bank's id and its key there.
    enum CaptureTarget {
        case sound(UInt32)
        case bankSound(bank: UInt32, key: String)
    }

    /// How the capture being written knows the sound, or nil when it does
    /// not (no capture, or a sound it has not named yet: its declaration
    /// then reads the file as it is). With the lock held.
    ///
    /// - Parameter engine: The sound's engine.
    func captureTargetLocked(_ engine: AudioEngine) -> CaptureTarget? {
        guard let recorder = engine.captureRecorder else { return nil }
        if captureTag.generation == recorder.generation { return .sound(captureTag.id) }
        if let bank, let bankKey, bank.captureTag.generation == recorder.generation {
            return .bankSound(bank: bank.captureTag.id, key: bankKey)
        }
        return nil
    }

    /// The sound's asset with `data` for bytes: its file as read once, named
    /// and looped as the sound is.
    ///
    /// - Parameter data: The file's bytes.
    func asset(replacing data: Data) -> AudioAsset {
        let url: URL
        let loop: LoopPoints?
        switch origin {
        case .asset(let asset): (url, loop) = (asset.url, asset.explicitLoopPoints)
        case .buffer: (url, loop) = (AudioAsset.url(scheme: "memory", name: name), nil)
        }
        return AudioAsset(source: data, url: url, loopPoints: loop)
    }

    /// Records a reload that took: the file as it was decoded. With the lock held.
    ///
    /// - Parameters:
    ///   - engine: The sound's engine.
    ///   - file: The file as read for the reload.
    func recordReloadLocked(_ engine: AudioEngine, _ file: CapturedFile) {
        guard let target = captureTargetLocked(engine) else { return }
        let afterStep = engine.fileWatchLocked.isAfterStepLocked
        engine.recordLocked(.reloadSound) { encoder in
            switch target {
            case .sound(let id):
                encoder.appendFixed(UInt8(0))
                encoder.append(id)
            case .bankSound(let bank, let key):
                encoder.appendFixed(UInt8(1))
                encoder.append(bank)
                encoder.append(key)
            }
            encoder.append(afterStep)
            file.encode(into: &encoder)
        }
    }

    /// Applies a reload a capture recorded: from now on the sound decodes
    /// `asset`, and a resident sound is swapped for it as the original was
    /// (voices under way finish on the old buffer), now or just after the
    /// next update step. Decodes on the caller's thread.
    ///
    /// - Parameters:
    ///   - asset: The new content (the kept bytes, or the file).
    ///   - afterStep: Whether the original took it just after the step at its frame.
    /// - Throws: The decode's error (a file that does not decode here).
    package func replayReload(_ asset: AudioAsset, afterStep: Bool) throws {
        guard let engine else { throw BackbeatError(.engineShutDown, operation: "replay a reload of \(name)") }
        let resident = engine.withLock { () -> Bool in
            if case .loaded = loadState { return true }
            return false
        }
        let decoded = resident ? try decode(budget: engine.effectCacheBudget, replacement: asset) : nil
        let failure = LockedValueBox<BackbeatError?>(nil)
        engine.withLock {
            let apply = { [self] in
                replayAsset = asset
                guard let decoded else {
                    if case .failed = loadState { loadState = .unloaded }
                    return
                }
                do throws(BackbeatError) {
                    try engine.effectCacheLocked.replaceLocked(self, with: decoded)
                } catch {
                    engine.logLocked(
                        .warning, "replaying the reload of \(name): \(error)", key: "reload:\(name)",
                        problem: "reloadFailed")
                    failure.withLockedValue { $0 = error }
                }
            }
            if afterStep { engine.fileWatchLocked.afterNextStepLocked(apply) } else { apply() }
        }
        engine.deliverPendingEvents()
        if let error = failure.withLockedValue({ $0 }) { throw error }
    }
}

extension SoundEffect {
    /// The loop region set on the sound's asset (not read from its file's tags).
    package var explicitLoopPoints: LoopPoints? {
        guard case .asset(let asset) = origin else { return nil }
        return asset.explicitLoopPoints
    }
}
