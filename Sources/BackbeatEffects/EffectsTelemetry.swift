import BackbeatEngine
import BackbeatTelemetry

/// The effects layer's part of what a monitor sees and may change: the
/// voices (through the pool), the listener, the mix snapshots by name, and
/// stopping a voice. Made with the engine's ``EffectsState`` and registered
/// with the engine then (held weakly there); it runs only while a monitor
/// is attached.
final class EffectsTelemetry: TelemetryContributor, @unchecked Sendable {
    // @unchecked: read and written only under the engine lock.
    private weak var engine: AudioEngine?
    /// The snapshots the game has activated, by name.
    var snapshots = MixSnapshotRegistry()

    init(engine: AudioEngine) { self.engine = engine }

    func contributeLocked(to builder: TelemetrySnapshotBuilder) {
        guard let engine, let effects = engine.existingEffectsLocked else { return }
        for entry in snapshots.entries {
            builder.snapshot.snapshots.append(
                .init(name: entry.snapshot.name, active: snapshots.isActive(entry.snapshot.name)))
        }
        if let listener = effects.listener {
            let p = listener.position
            let f = listener.forward
            builder.snapshot.listener = .init(
                position: [Double(p.x), Double(p.y), Double(p.z)], forward: [Double(f.x), Double(f.y), Double(f.z)])
        }
        effects.pool?.contributeLocked(to: builder)
    }

    func applyTelemetryLocked(_ setting: TelemetrySetting) -> Result<Void, TelemetryCommandError>? {
        guard let engine else { return nil }
        switch setting {
        case .snapshot(let name, let on):
            guard let entry = snapshots.entry(named: name) else {
                let known = snapshots.entries.map { "\"\($0.snapshot.name)\"" }
                return .failure(
                    TelemetryCommandError(
                        known.isEmpty
                            ? "unknown snapshot \"\(name)\": the game has activated no snapshot yet"
                            : "unknown snapshot \"\(name)\" (known: \(known.joined(separator: ", ")))"))
            }
            if on {
                guard !snapshots.isActive(name) else { return .success(()) }
                do {
                    _ = try engine.activateLocked(
                        entry.snapshot, over: entry.duration, curve: entry.curve, priority: entry.priority)
                } catch {
                    return .failure(TelemetryCommandError("snapshot \"\(name)\": \(error)"))
                }
            } else {
                snapshots.release(name, at: engine.currentFrameLocked, sampleRate: engine.sampleRate)
            }
            return .success(())
        case .stopVoice(let id):
            guard let pool = engine.existingEffectsLocked?.pool, pool.stopVoiceLocked(id: id) else {
                return .failure(TelemetryCommandError("no voice \(id): it has finished, or never was"))
            }
            return .success(())
        default:
            return nil
        }
    }
}
