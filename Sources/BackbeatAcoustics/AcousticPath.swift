/// What the listener hears of one source through the level: the gain per
/// band and the direction it seems to come from.
public struct AcousticPath: Sendable, Equatable {
    /// The amplitude gain per band, relative to the source heard in the open
    /// at the same distance: the direct part (through what it crosses) and
    /// the diffracted part (around an edge, longer) mixed by energy.
    public var gains: AcousticBands
    /// The direction the sound seems to come from, from the listener (unit
    /// length): the source's own, or the last bend of the path around.
    public var direction: SIMD3<Float>
    /// The direct part's gain per band: the transmission of every surface
    /// the rays cross, averaged by energy over the source's rays.
    public var transmission: AcousticBands
    /// The fraction of the source's rays that reach the listener unblocked, 0...1.
    public var visibleFraction: Float
    /// The path around, when the direct one is blocked and one was found.
    public var diffraction: DiffractedPath?

    /// A path around an obstacle.
    public struct DiffractedPath: Sendable, Equatable {
        /// The path's length in metres.
        public var length: Float
        /// Its last bend before the listener (where the sound seems to come from).
        public var lastBend: SIMD3<Float>
        /// How many edges it bends around.
        public var bends: Int
        /// The amplitude gain per band: Maekawa's loss for the detour, times
        /// what the path crosses (a portal's openness), without the longer
        /// path's distance attenuation.
        public var gains: AcousticBands
    }
}

extension AcousticPath {
    /// The direction to place the voice's source in: ``direction`` while
    /// part of the sound comes around (``diffraction``), nil while it comes
    /// straight (the source stays where the game put it).
    var heardDirection: SIMD3<Float>? {
        guard diffraction != nil, direction.x.isFinite, direction.y.isFinite, direction.z.isFinite else { return nil }
        return direction
    }
}
