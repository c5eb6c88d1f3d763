import BackbeatSupport

/// A level's acoustic geometry: what a game gives Backbeat to work out what
/// the listener hears. Read one from a Wavefront OBJ file
/// (``init(contentsOfOBJ:)``) or build it in code; then make an
/// ``AcousticScene`` of it.
public struct AcousticLevel: Sendable {
    /// Meshes that never move and block sound (walls, floors, furniture).
    public var staticMeshes: [AcousticMesh]
    /// Meshes the game moves each frame (a vehicle, a crate), in their own coordinates.
    public var movableMeshes: [AcousticMesh]
    /// The rooms, each a closed volume with its reverb.
    public var rooms: [AcousticRoom]
    /// The openings between rooms.
    public var portals: [AcousticPortal]
    /// What reading the level worked around (an unknown material); validation adds its own.
    public var warnings: [AcousticWarning]

    /// The most triangles a level may have, static, movable and rooms
    /// together: 1,000,000. A level that size (crates and walls, generated)
    /// grew the resident memory by 382 MiB to load: the level, its validated
    /// copy, the diffraction edges and Embree's copy and BVH. A larger one
    /// (a 2,000,000-triangle level) is refused with
    /// ``BackbeatError/Code/levelTooLarge`` before anything is built.
    public static let maximumTriangleCount = 1_000_000

    /// The farthest a vertex may be from the origin on any axis, in metres:
    /// beyond, single-precision ray casts lose centimetres.
    public static let maximumCoordinate: Float = 1_000_000

    /// A level.
    ///
    /// - Parameters:
    ///   - staticMeshes: Meshes that never move.
    ///   - movableMeshes: Meshes the game moves (see ``AcousticScene/setTransform(_:ofMovableMesh:)``).
    ///   - rooms: The rooms.
    ///   - portals: The openings between rooms.
    public init(
        staticMeshes: [AcousticMesh] = [], movableMeshes: [AcousticMesh] = [], rooms: [AcousticRoom] = [],
        portals: [AcousticPortal] = []
    ) {
        self.staticMeshes = staticMeshes
        self.movableMeshes = movableMeshes
        self.rooms = rooms
        self.portals = portals
        self.warnings = []
    }

    /// Triangles in all meshes and rooms.
    public var triangleCount: Int {
        (staticMeshes + movableMeshes + rooms.map(\.mesh)).reduce(0) { $0 + $1.triangles.count }
    }
}
