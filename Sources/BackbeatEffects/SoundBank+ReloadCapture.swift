import BackbeatCapture
import BackbeatEngine
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A bank reload in a capture (``CaptureKind/reloadBank``): written where the
/// reload takes effect, and applied by a replay at the same point.
extension SoundBank {
    /// What a capture keeps of a bank's text read from `url`.
    ///
    /// - Parameters:
    ///   - url: The bank file.
    ///   - text: The text read.
    static func captured(url: URL, text: Data) -> CapturedFile {
        CapturedFile(
            fingerprint: FileFingerprint(path: url.path, size: Int64(text.count), hash: SoundCaptureOrigin.hash(text)),
            bytes: text.count <= CapturedFile.largestKept ? Array(text) : nil)
    }

    /// Records a reload that took, when the capture already knows the bank
    /// (one that declares it later reads its file then). With the lock held.
    ///
    /// - Parameters:
    ///   - engine: The bank's engine.
    ///   - captured: The text the new definition was read from.
    func recordReloadLocked(_ engine: AudioEngine, _ captured: CapturedFile) {
        guard let recorder = engine.captureRecorder, captureTag.generation == recorder.generation else { return }
        let id = captureTag.id
        let afterStep = engine.fileWatchLocked.isAfterStepLocked
        engine.recordLocked(.reloadBank) { encoder in
            encoder.append(id)
            encoder.append(afterStep)
            captured.encode(into: &encoder)
        }
    }

    /// Applies a reload a capture recorded: `text` replaces the bank's
    /// definitions as the original's reload did, now or just after the next
    /// update step.
    ///
    /// - Parameters:
    ///   - text: The bank's new text.
    ///   - path: The bank file's path in the capture (its sounds are found beside it).
    ///   - afterStep: Whether the original took it just after the step at its frame.
    /// - Throws: ``BackbeatError/Code/invalidSoundBank`` when the text does
    ///   not load here (its sounds are missing, say).
    package func replayReload(text: Data, path: String, afterStep: Bool) throws {
        guard let engine else { throw BackbeatError(.engineShutDown, operation: "replay a bank reload") }
        let file = URL(fileURLWithPath: path)
        let definition = try BankDefinition.load(
            text: text, url: file, folder: file.deletingLastPathComponent(), budget: engine.effectCacheBudget)
        // Buses the original made for the new definition were recorded, and
        // the replay made them; any other is made here, outside the lock.
        let known = locked { Set(state.busByName.keys) }
        var made: [String: Bus] = [:]
        for name in definition.buses where !known.contains(name) {
            made[name] = engine.withLock { engine.busLocked(named: name) } ?? engine.makeBus(named: name)
        }
        engine.withLock {
            let apply = { [self] in _ = applyReloadLocked(.success(definition), buses: made, captured: nil) }
            if afterStep { engine.fileWatchLocked.afterNextStepLocked(apply) } else { apply() }
        }
        engine.deliverPendingEvents()
    }

    /// The bank's sound with `key` (its file, and loop region), for a replay.
    ///
    /// - Parameter key: The sound's key in the bank.
    package func sound(forKey key: String) -> SoundEffect? { locked { state.soundByKey[key] } }
}
