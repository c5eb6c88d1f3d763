extension AcousticScene {
    /// How many of `segments` are blocked, cast through the door one by one
    /// with the lock taken once: Backbeat's occlusion rays, for the
    /// `acoustics.embree_ratio` benchmark.
    ///
    /// - Parameter segments: Pairs of points.
    package func countBlocked(_ segments: [(SIMD3<Float>, SIMD3<Float>)]) -> Int {
        lock.withLock {
            commitIfNeededLocked()
            return segments.reduce(0) { $0 + (rays.isBlocked(from: $1.0, to: $1.1) ? 1 : 0) }
        }
    }

    /// The same count with raw `rtcOccluded1`, one ray at a time, the
    /// benchmark's reference.
    ///
    /// - Parameter segments: Pairs of points.
    package func rawCountBlocked(_ segments: [(SIMD3<Float>, SIMD3<Float>)]) -> Int {
        lock.withLock {
            segments.reduce(0) { count, segment in
                let d = segment.1 - segment.0
                let l = length(d)
                // The margins the door leaves at each end, in the ray's own units.
                let blocked =
                    l > 2e-4 && rays.rawOccluded(origin: segment.0, direction: d, near: 1e-4 / l, far: 1 - 1e-4 / l)
                return count + (blocked ? 1 : 0)
            }
        }
    }
}
