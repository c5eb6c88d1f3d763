import BackbeatEngine
import BackbeatSupport

/// A level ready for ray casts: its meshes in Embree, its rooms' acoustics,
/// its portals' openness and its movable meshes' places, and the questions a
/// listener asks of it (``path(from:to:radius:)``, ``room(containing:)``).
///
/// Thread-safe: one lock holds the movable transforms, the portals and the
/// ray scene's commits.
///
/// ```swift
/// let scene = try AcousticScene(level: AcousticLevel(contentsOfOBJ: url))
/// let heard = scene.path(from: listener, to: source, radius: 0.5)
/// ```
public final class AcousticScene: @unchecked Sendable {
    // @unchecked: every mutable member is read and written with `lock` held.

    /// What a ray scene geometry index stands for.
    enum Geometry {
        case staticMesh(Int)
        case portal(Int)
        case movableMesh(Int)
    }

    let lock = Lock()
    /// The level as validated (degenerate triangles dropped).
    let level: AcousticLevel
    let rays: RayScene
    let geometries: [Geometry]
    /// Edges of each static mesh and (in their own coordinates) each movable mesh.
    let staticEdges: [MeshEdges]
    let movableEdges: [MeshEdges]
    /// The rooms on either side of each portal.
    let portalRooms: [[Int]]
    /// With the lock held.
    var portals: [AcousticPortal]
    var transforms: [AcousticTransform]
    var needsCommit = false
    /// Each room's bounding box, tried before its triangles.
    let roomBounds: [(low: SIMD3<Float>, high: SIMD3<Float>)]
    /// The portal graph (with the lock held), and the openness it was worked out for.
    var portalGraph: PortalGraph
    var graphGeneration = 0
    /// Counts changes of openness; ``geometryGeneration`` counts those and moves.
    var opennessGeneration = 0
    var movesGeneration = 0
    /// What reaches one room from another through the portals, for the
    /// audibility estimate (with the lock held; see ``roomGainsLocked()``).
    var roomGainTable: RoomGainTable?

    /// What validating and reading the level worked around.
    public let warnings: [AcousticWarning]

    /// Makes the scene: validates the level, builds its ray scene.
    ///
    /// - Parameter level: The level.
    /// - Throws: ``BackbeatError/Code/levelTooLarge``, ``BackbeatError/Code/invalidGeometry``
    ///   (see ``AcousticLevel/maximumTriangleCount``), ``BackbeatError/Code/rayTracer``.
    public init(level: AcousticLevel) throws(BackbeatError) {
        let valid = try level.validated()
        self.level = valid
        warnings = valid.warnings
        portals = valid.portals
        transforms = Array(repeating: .identity, count: valid.movableMeshes.count)
        func mesh(_ m: AcousticMesh) -> RayScene.Mesh { RayScene.Mesh(vertices: m.vertices, triangles: m.triangles) }
        rays = try RayScene(
            staticMeshes: valid.staticMeshes.map(mesh) + valid.portals.map { mesh($0.mesh) },
            movableMeshes: valid.movableMeshes.map(mesh))
        geometries =
            valid.staticMeshes.indices.map { .staticMesh($0) } + valid.portals.indices.map { .portal($0) }
            + valid.movableMeshes.indices.map { .movableMesh($0) }
        staticEdges = valid.staticMeshes.map(MeshEdges.init(mesh:))
        movableEdges = valid.movableMeshes.map(MeshEdges.init(mesh:))
        portalRooms = valid.portals.map { valid.rooms(besidePortal: $0) }
        roomBounds = valid.rooms.map { room in
            room.mesh.vertices.reduce(
                (low: SIMD3<Float>(repeating: .infinity), high: SIMD3<Float>(repeating: -.infinity))
            ) {
                (pointwiseMin($0.low, $1), pointwiseMax($0.high, $1))
            }
        }
        portalGraph = PortalGraph(portals: valid.portals, portalRooms: portalRooms, roomCount: valid.rooms.count)
    }

    /// Changes to the geometry so far (a movable mesh moved, a portal's
    /// openness changed): a path worked out at one generation holds until the next.
    public var geometryGeneration: Int { lock.withLock { opennessGeneration + movesGeneration } }

    /// Triangles in the level (meshes and rooms, after validation).
    public var triangleCount: Int { level.triangleCount }
    /// Rooms in the level.
    public var roomCount: Int { level.rooms.count }
    /// Portals in the level.
    public var portalCount: Int { level.portals.count }

    /// Moves a movable mesh; the next query hears it there.
    ///
    /// - Parameters:
    ///   - transform: Where the mesh is now (its coordinates to the level's).
    ///   - name: The mesh's name in ``AcousticLevel/movableMeshes``.
    /// - Throws: ``BackbeatError/Code/unknownAcousticObject`` for a name the level has no movable mesh by;
    ///   ``BackbeatError/Code/invalidArgument`` for a transform that is not finite.
    public func setTransform(_ transform: AcousticTransform, ofMovableMesh name: String) throws(BackbeatError) {
        guard let index = level.movableMeshes.firstIndex(where: { $0.name == name }) else {
            throw BackbeatError(
                .unknownAcousticObject, operation: "setTransform", reason: "no movable mesh \"\(name.prefix(64))\"")
        }
        guard transform.isFinite else {
            throw BackbeatError(.invalidArgument, operation: "setTransform", reason: "the transform is not finite")
        }
        lock.lock()
        defer { lock.unlock() }
        transforms[index] = transform
        try rays.setTransform(transform, ofMovable: index)
        needsCommit = true
        movesGeneration += 1
    }

    /// Sets how open a portal is.
    ///
    /// - Parameters:
    ///   - openness: 0 (closed) ... 1 (open); clamped.
    ///   - name: The portal's name.
    /// - Throws: ``BackbeatError/Code/unknownAcousticObject`` for a name the level has no portal by;
    ///   ``BackbeatError/Code/invalidArgument`` for NaN.
    public func setOpenness(_ openness: Float, ofPortal name: String) throws(BackbeatError) {
        guard let index = level.portals.firstIndex(where: { $0.name == name }) else {
            throw BackbeatError(
                .unknownAcousticObject, operation: "setOpenness", reason: "no portal \"\(name.prefix(64))\"")
        }
        guard !openness.isNaN else {
            throw BackbeatError(.invalidArgument, operation: "setOpenness", reason: "openness is NaN")
        }
        let clamped = min(max(openness, 0), 1)
        lock.withLock {
            guard portals[index].openness != clamped else { return }
            portals[index].openness = clamped
            opennessGeneration += 1
        }
    }

    /// The openness of a portal, or nil if the level has none by that name.
    ///
    /// - Parameter name: The portal's name.
    public func openness(ofPortal name: String) -> Float? {
        guard let index = level.portals.firstIndex(where: { $0.name == name }) else { return nil }
        return lock.withLock { portals[index].openness }
    }

    /// The name of the room `point` is in, or nil outside every room.
    ///
    /// - Parameter point: A point in level coordinates.
    public func room(containing point: SIMD3<Float>) -> String? {
        roomIndex(containing: point).map { level.rooms[$0].name }
    }

    /// A room's acoustics from its shape, materials and open portals now.
    ///
    /// - Parameter name: The room's name.
    /// - Returns: nil if the level has no room by that name.
    public func acoustics(ofRoom name: String) -> RoomAcoustics? {
        guard let index = level.rooms.firstIndex(where: { $0.name == name }) else { return nil }
        let openArea = lock.withLock {
            portals.indices.reduce(Float(0)) { sum, p in
                portalRooms[p].contains(index) ? sum + portals[p].area * portals[p].openness : sum
            }
        }
        return RoomAcoustics(room: level.rooms[index], openPortalArea: openArea)
    }

    /// A room's reverb: the one the game set on the room, or the one its acoustics give.
    ///
    /// - Parameter name: The room's name.
    /// - Returns: nil if the level has no room by that name.
    public func reverbParameters(ofRoom name: String) -> AudioEnvironmentReverbParameters? {
        guard let room = level.rooms.first(where: { $0.name == name }) else { return nil }
        return room.reverb ?? acoustics(ofRoom: name)?.reverbParameters
    }
}
