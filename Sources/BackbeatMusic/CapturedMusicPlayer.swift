import BackbeatCapture
import BackbeatEngine
import BackbeatMedia

/// A music player in a capture: declared once by its id (each kind of
/// player says how), then named by it in every record about it. The
/// volume, fade and fade-out every player forwards to its core are
/// recorded here, once for the three.
protocol CapturedMusicPlayer: EngineMusicPlaying {
    /// The player's id in the capture that last saw it, under the engine lock.
    var captureTag: CaptureTag { get set }

    /// The player's id in the capture being written, declaring it the first
    /// time the capture sees it; nil when no capture is on. Engine lock held.
    func captureIDLocked() -> UInt32?
}

extension CapturedMusicPlayer {
    /// Writes a record about this player (its id first) when a capture is on.
    ///
    /// - Parameters:
    ///   - kind: What the game did.
    ///   - encode: Writes the rest of the payload.
    func record(_ kind: CaptureKind, _ encode: (inout CaptureEncoder) -> Void = { _ in }) {
        guard let engine = core.engine, engine.captureRecorder != nil, let id = captureIDLocked() else { return }
        engine.recordLocked(kind) { encoder in
            encoder.append(id)
            encode(&encoder)
        }
    }

    /// Declares the player to the capture being written (its id and the
    /// record `kind`, whose payload `declare` writes), and tells its core,
    /// which records the player's release.
    ///
    /// - Parameters:
    ///   - engine: The player's engine.
    ///   - kind: The declaring record's kind.
    ///   - declare: Writes the declaring record's payload after the id.
    /// - Returns: The player's id in the capture, or nil when none is on.
    func declareLocked(
        _ engine: AudioEngine, _ kind: CaptureKind, _ declare: (inout CaptureEncoder) -> Void = { _ in }
    ) -> UInt32? {
        let id = engine.captureIDLocked(&captureTag, declaring: kind, declare)
        core.captureTag = captureTag
        return id
    }

    /// Whether the capture being written has declared this player already
    /// (its id then is `captureTag.id`); false when no capture is on.
    var isDeclaredLocked: Bool {
        guard let recorder = core.engine?.captureRecorder else { return false }
        return captureTag.generation == recorder.generation
    }

    /// Sets the volume, as the player's `volume` setter does, and records it.
    func applyVolumeLocked(_ value: Float) {
        core.setVolumeLocked(value)
        record(.musicVolume) { $0.append(value) }
    }

    /// Starts a fade, as the player's `fade(to:duration:curve:)` does, and records it.
    func applyFadeLocked(to target: Float, duration: MediaTime, curve: FadeCurve) {
        core.fadeLocked(to: target, duration: duration, curve: curve)
        record(.musicFade) { encoder in
            encoder.append(target)
            EngineCaptureValues.encode(duration, into: &encoder)
            EngineCaptureValues.encode(curve, into: &encoder)
        }
    }

    /// Starts the fade to silence of `fadeOut(duration:)`, and records it.
    func applyFadeOutLocked(_ duration: MediaTime) {
        core.fadeOutLocked(duration: duration)
        record(.musicFadeOut) { EngineCaptureValues.encode(duration, into: &$0) }
    }
}

extension PlayerItem {
    /// The item's id in the capture being written, declaring it with its
    /// asset the first time the capture sees it; nil when no capture is on.
    ///
    /// - Parameter engine: The engine of the player that queues it (its lock held).
    /// - Returns: The item's capture id, or nil.
    func captureIDLocked(_ engine: AudioEngine) -> UInt32? {
        engine.captureIDLocked(&captureTag, declaring: .musicItemDeclare) { encoder in
            MusicCaptureValues.encode(asset, into: &encoder)
        }
    }
}
