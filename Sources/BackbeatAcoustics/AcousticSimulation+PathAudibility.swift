import BackbeatEffects
import BackbeatEngine

extension AcousticSimulation {
    /// A voice's audibility from its last traced path, which stands in for
    /// the room-table estimate while neither it nor the listener moved far
    /// and the geometry did not change: the rays see the concrete wall
    /// between two rooms that the table, which knows only the rooms and the
    /// doors between, does not. A voice the rays find below the engine's
    /// audibility threshold goes virtual and frees its source.
    struct PathAudibility {
        /// The path's broadband gain (its loudest band).
        var gain: Float
        /// Where the voice and the listener were when it was traced.
        var position: SIMD3<Float>
        var listener: SIMD3<Float>
        /// The level's geometry generation it was traced in.
        var generation: Int
        /// The last update that traced it or used it.
        var update: Int
    }

    /// How far the voice or the listener may move from where a path was
    /// traced, in metres, before the path no longer stands for the voice's
    /// audibility and the room-table estimate takes over again (or, at
    /// ``relativePathReach`` of the distance, further for a far voice).
    static let pathReach: Float = 1
    static let relativePathReach: Float = 0.1

    /// How much louder than the audibility threshold a virtual voice's path
    /// must be for it to take a source again (2 dB: the voice pool's own
    /// margin for stealing): a voice on the threshold does not flap.
    static let pathHysteresis: Float = 1.26

    /// Updates after which an entry not used is dropped (a voice that ended).
    static let pathAudibilityLifetime = 256

    /// Whether `entry` still stands for a voice now at `position` with the
    /// listener at `listener` in geometry `generation`.
    ///
    /// - Parameters:
    ///   - entry: The voice's last traced audibility.
    ///   - position: Where the voice is now.
    ///   - listener: Where the listener is now.
    ///   - generation: The level's geometry generation now.
    static func stands(
        _ entry: PathAudibility, position: SIMD3<Float>, listener: SIMD3<Float>, generation: Int
    ) -> Bool {
        entry.generation == generation
            && stayed(
                from: (entry.position, entry.listener), to: (position, listener), within: pathReach,
                relative: relativePathReach)
    }

    /// The gain a voice's audibility takes from its traced path: the path's
    /// gain while it is heard, and ``pathHysteresis`` less while it is
    /// virtual, so it comes back only once clearly over the threshold.
    ///
    /// - Parameters:
    ///   - entry: The voice's traced audibility.
    ///   - isReal: Whether the voice holds a source now.
    static func audibilityGain(of entry: PathAudibility, isReal: Bool) -> Float {
        isReal ? entry.gain : entry.gain / pathHysteresis
    }

    /// Drops the entries no update used for ``pathAudibilityLifetime``
    /// updates (voices that ended), every so often. With the lock held.
    func prunePathAudibilityLocked() {
        guard updates % 64 == 0, !pathAudibility.isEmpty else { return }
        let oldest = updates - Self.pathAudibilityLifetime
        pathAudibility = pathAudibility.filter { $0.value.update >= oldest }
    }
}
