import BackbeatEngine
import BackbeatMedia

/// The mix snapshots an engine knows by name, for a monitor: every
/// ``MixSnapshot`` the game has activated, remembered by its name with the
/// glide, curve and priority it was last activated with, and the
/// activations of it not yet released.
///
/// Banks define no snapshots, so activation is how the engine learns one:
/// a monitor can turn on a snapshot the game has used at least once, the
/// way the game last turned it on. Under the engine lock.
struct MixSnapshotRegistry {
    /// One snapshot name.
    struct Entry {
        /// The snapshot as last activated.
        var snapshot: MixSnapshot
        var duration: MediaTime
        var curve: FadeCurve
        var priority: Int
        /// Its activations not yet released (released ones are dropped when next looked at).
        var active: [ActiveMixSnapshot]
    }

    /// In the order their names were first activated.
    private(set) var entries: [Entry] = []

    /// Notes an activation.
    ///
    /// - Parameters:
    ///   - active: the activation, as ``AudioEngine/activate(_:over:curve:priority:)`` returns it.
    ///   - duration: the glide it was activated with.
    ///   - curve: the curve it was activated with.
    mutating func remember(_ active: ActiveMixSnapshot, duration: MediaTime, curve: FadeCurve) {
        let name = active.snapshot.name
        if let i = entries.firstIndex(where: { $0.snapshot.name == name }) {
            entries[i].snapshot = active.snapshot
            entries[i].duration = duration
            entries[i].curve = curve
            entries[i].priority = active.priority
            entries[i].active.removeAll { $0.isReleasedLocked }
            entries[i].active.append(active)
        } else {
            entries.append(
                Entry(
                    snapshot: active.snapshot, duration: duration, curve: curve, priority: active.priority,
                    active: [active]))
        }
    }

    /// The entry for `name`, if the game ever activated a snapshot by that name.
    ///
    /// - Parameter name: the snapshot's name.
    func entry(named name: String) -> Entry? { entries.first { $0.snapshot.name == name } }

    /// Whether a snapshot by `name` is active (activated and not released).
    ///
    /// - Parameter name: the snapshot's name.
    func isActive(_ name: String) -> Bool {
        entry(named: name)?.active.contains { !$0.isReleasedLocked } ?? false
    }

    /// Releases every unreleased activation of `name` over the glide it was activated with.
    ///
    /// - Parameters:
    ///   - name: the snapshot's name.
    ///   - frame: the engine frame the release starts on.
    ///   - sampleRate: the engine's, to turn the glide into frames.
    mutating func release(_ name: String, at frame: Int64, sampleRate: Int) {
        guard let i = entries.firstIndex(where: { $0.snapshot.name == name }) else { return }
        let frames = entries[i].duration.frames(atSampleRate: sampleRate)
        for active in entries[i].active where !active.isReleasedLocked {
            active.releaseLocked(at: frame, frames: frames, curve: entries[i].curve)
        }
        entries[i].active.removeAll()
    }
}
