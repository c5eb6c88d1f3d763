import BackbeatCapture
import BackbeatMedia

// A bus in a capture: declared once (which bus, its name, its parent), then
// named by its id in every record about it.
extension Bus {
    /// This bus's id in the capture being written, declaring it (and its
    /// parents first) the first time the capture sees it; nil when no capture
    /// is on. Other modules name a bus in their records with it (a voice's bus).
    ///
    /// - Returns: The bus's capture id, or nil.
    package func captureIDLocked() -> UInt32? {
        guard let engine, engine.captureRecorder != nil else { return nil }
        preconditionEngineLocked()
        let builtin: UInt64 =
            self === engine.masterBus ? 1 : self === engine.musicBus ? 2 : self === engine.effectsBus ? 3 : 0
        let parentID = builtin == 0 ? parent?.captureIDLocked() ?? 0 : 0
        return engine.captureIDLocked(&captureTag, declaring: .busDeclare) { encoder in
            encoder.append(builtin)
            encoder.append(name)
            encoder.append(parentID)
        }
    }

    /// Writes a record about this bus (its id first), when a capture is on.
    ///
    /// - Parameters:
    ///   - kind: What happened.
    ///   - encode: Writes the rest of the payload.
    func recordLocked(_ kind: CaptureKind, _ encode: (inout CaptureEncoder) -> Void) {
        guard let engine, engine.captureRecorder != nil, let id = captureIDLocked() else { return }
        engine.recordLocked(kind) { encoder in
            encoder.append(id)
            encode(&encoder)
        }
    }

    /// Records a duck the game asked for, declaring it by its id.
    ///
    /// - Parameters:
    ///   - duck: The duck.
    ///   - decibels: Its depth, as the game gave it.
    ///   - attack: Its attack.
    ///   - release: Its release.
    ///   - trigger: What releases it when it ends (a voice), if anything.
    func recordDuckLocked(
        _ duck: Duck, decibels: Float, attack: MediaTime, release: MediaTime, until trigger: (any DuckReleaseTrigger)?
    ) {
        guard let engine, engine.captureRecorder != nil, let busID = captureIDLocked() else { return }
        let voice = trigger?.captureIDLocked
        _ = engine.captureIDLocked(&duck.captureTag, declaring: voice == nil ? .busDuck : .busDuckUntil) { encoder in
            encoder.append(busID)
            encoder.append(decibels)
            EngineCaptureValues.encode(attack, into: &encoder)
            EngineCaptureValues.encode(release, into: &encoder)
            if let voice { encoder.append(voice) }
        }
    }
}
