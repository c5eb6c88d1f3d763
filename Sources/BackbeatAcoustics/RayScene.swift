import BackbeatSupport
internal import CEmbree

/// The one door to Embree: the only code that calls `rtc*`. It owns a device
/// and a scene of triangle meshes, some static and some instanced (moved by a
/// transform each frame), and answers two questions about a segment: is it
/// blocked, and what does it cross.
///
/// Embree reports errors through a callback; the door records the last one
/// and turns it into a ``BackbeatError`` with the operation that caused it.
///
/// Queries may run on several threads at once (Embree allows it); changing a
/// transform and ``commit()`` must not overlap a query. `AcousticScene` holds
/// that line with its lock.
final class RayScene: @unchecked Sendable {
    // @unchecked: Embree's handles are thread-safe for queries; the mutations
    // (setTransform, commit) are serialised by the owner, as documented above.

    /// A triangle mesh as Embree takes it: vertices and index triples.
    struct Mesh {
        var vertices: [SIMD3<Float>]
        var triangles: [SIMD3<UInt32>]
    }

    /// A surface a segment crosses: which geometry (its index in the order
    /// given to `init`), which triangle of it, and how far along (metres).
    struct Hit: Equatable {
        var geometry: Int
        var triangle: Int
        var distance: Float
    }

    /// Embree's last error, written by its callback.
    private final class ErrorBox: @unchecked Sendable {
        // @unchecked: the lock guards `message`.
        let lock = Lock()
        var message: String?
    }

    /// RTC_INVALID_GEOMETRY_ID, a macro Swift does not import.
    private let invalidID = UInt32.max
    private let device: RTCDevice
    private let scene: RTCScene
    private var childScenes: [RTCScene] = []
    private var instances: [RTCGeometry] = []
    private let errors = ErrorBox()
    /// How many geometries are static (their indices come first).
    let staticCount: Int
    /// How many geometries there are, static and movable.
    var geometryCount: Int { staticCount + instances.count }

    /// Builds the scene: static meshes get geometries 0..<static.count, movable
    /// ones the indices after, each an instance with the identity transform.
    ///
    /// - Parameters:
    ///   - staticMeshes: Meshes that never move (walls, floors, portals).
    ///   - movableMeshes: Meshes the caller moves with ``setTransform(_:ofMovable:)``.
    ///   - threads: Embree's worker threads for building (0: as many as cores).
    /// - Throws: ``BackbeatError/Code/rayTracer`` when Embree refuses (no memory, an unsupported CPU).
    init(staticMeshes: [Mesh], movableMeshes: [Mesh], threads: Int = 1) throws(BackbeatError) {
        let config = "threads=\(max(0, min(threads, 256))),verbose=0"
        guard let device = rtcNewDevice(config) else {
            throw BackbeatError(.rayTracer, operation: "rtcNewDevice", reason: "Embree could not start on this CPU")
        }
        self.device = device
        staticCount = staticMeshes.count
        rtcSetDeviceErrorFunction(
            device,
            { user, _, text in
                guard let user else { return }
                let box = Unmanaged<ErrorBox>.fromOpaque(user).takeUnretainedValue()
                let message = text.map { String(cString: $0) } ?? "unknown"
                box.lock.withLock { box.message = message }
            }, Unmanaged.passUnretained(errors).toOpaque())
        guard let scene = rtcNewScene(device) else {
            rtcReleaseDevice(device)
            throw BackbeatError(.rayTracer, operation: "rtcNewScene", reason: "Embree could not make a scene")
        }
        self.scene = scene
        // From here on deinit releases what exists, so a throw leaks nothing.
        rtcSetSceneFlags(scene, RTC_SCENE_FLAG_DYNAMIC)
        for (index, mesh) in staticMeshes.enumerated() {
            let geometry = try makeGeometry(mesh)
            rtcAttachGeometryByID(scene, geometry, UInt32(index))
            rtcReleaseGeometry(geometry)
            try check("rtcAttachGeometryByID")
        }
        for (offset, mesh) in movableMeshes.enumerated() {
            guard let child = rtcNewScene(device) else {
                try check("rtcNewScene")
                continue
            }
            childScenes.append(child)
            let geometry = try makeGeometry(mesh)
            rtcAttachGeometry(child, geometry)
            rtcReleaseGeometry(geometry)
            rtcCommitScene(child)
            try check("rtcCommitScene")
            guard let instance = rtcNewGeometry(device, RTC_GEOMETRY_TYPE_INSTANCE) else {
                try check("rtcNewGeometry")
                continue
            }
            rtcSetGeometryInstancedScene(instance, child)
            instances.append(instance)
            rtcAttachGeometryByID(scene, instance, UInt32(staticCount + offset))
            try setTransform(.identity, ofMovable: offset)
        }
        try commit()
    }

    deinit {
        for instance in instances { rtcReleaseGeometry(instance) }
        rtcReleaseScene(scene)
        for child in childScenes { rtcReleaseScene(child) }
        rtcReleaseDevice(device)
    }

    private func makeGeometry(_ mesh: Mesh) throws(BackbeatError) -> RTCGeometry {
        // Embree gives no buffer of 0 elements; a mesh left empty (every
        // triangle degenerate) keeps its geometry index with one point-sized
        // triangle, which no ray can hit.
        guard !mesh.vertices.isEmpty, !mesh.triangles.isEmpty else {
            return try makeGeometry(Mesh(vertices: [.zero], triangles: [.zero]))
        }
        guard let geometry = rtcNewGeometry(device, RTC_GEOMETRY_TYPE_TRIANGLE) else {
            try check("rtcNewGeometry")
            throw BackbeatError(.rayTracer, operation: "rtcNewGeometry")
        }
        // Embree reads vertices 16 bytes at a time; rtcSetNewGeometryBuffer pads the end for that.
        let vertexStride = MemoryLayout<Float>.stride * 3
        let indexStride = MemoryLayout<UInt32>.stride * 3
        guard
            let vertices = rtcSetNewGeometryBuffer(
                geometry, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, vertexStride, mesh.vertices.count)?
                .bindMemory(to: Float.self, capacity: mesh.vertices.count * 3),
            let indices = rtcSetNewGeometryBuffer(
                geometry, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, indexStride, mesh.triangles.count)?
                .bindMemory(to: UInt32.self, capacity: mesh.triangles.count * 3)
        else {
            rtcReleaseGeometry(geometry)
            try check("rtcSetNewGeometryBuffer")
            throw BackbeatError(.rayTracer, operation: "rtcSetNewGeometryBuffer", reason: "no memory")
        }
        for (i, v) in mesh.vertices.enumerated() {
            vertices[3 * i] = v.x
            vertices[3 * i + 1] = v.y
            vertices[3 * i + 2] = v.z
        }
        for (i, t) in mesh.triangles.enumerated() {
            indices[3 * i] = t.x
            indices[3 * i + 1] = t.y
            indices[3 * i + 2] = t.z
        }
        rtcCommitGeometry(geometry)
        do throws(BackbeatError) {
            try check("rtcCommitGeometry")
        } catch {
            rtcReleaseGeometry(geometry)
            throw error
        }
        return geometry
    }

    /// Throws Embree's pending error, if any, as a ``BackbeatError``.
    private func check(_ operation: String) throws(BackbeatError) {
        let code = rtcGetDeviceError(device)
        let message = errors.lock.withLock {
            defer { errors.message = nil }
            return errors.message
        }
        guard code != RTC_ERROR_NONE else { return }
        let name =
            switch code {
            case RTC_ERROR_INVALID_ARGUMENT: "invalid argument"
            case RTC_ERROR_INVALID_OPERATION: "invalid operation"
            case RTC_ERROR_OUT_OF_MEMORY: "out of memory"
            case RTC_ERROR_UNSUPPORTED_CPU: "unsupported CPU"
            case RTC_ERROR_CANCELLED: "cancelled"
            default: "unknown error"
            }
        throw BackbeatError(
            .rayTracer, operation: operation, reason: message.map { "\(name): \($0.prefix(200))" } ?? name)
    }

    /// Moves a movable mesh; takes effect at the next ``commit()``.
    ///
    /// - Parameters:
    ///   - transform: Where the mesh is now, from its own coordinates to the level's.
    ///   - index: The mesh's index among the movable meshes given to `init`.
    /// - Throws: ``BackbeatError/Code/rayTracer`` if Embree refuses the transform.
    func setTransform(_ transform: AcousticTransform, ofMovable index: Int) throws(BackbeatError) {
        precondition(instances.indices.contains(index), "no movable mesh \(index)")
        let instance = instances[index]
        let matrix = transform.columnMajor3x4
        matrix.withUnsafeBufferPointer { buffer in
            rtcSetGeometryTransform(instance, 0, RTC_FORMAT_FLOAT3X4_COLUMN_MAJOR, buffer.baseAddress)
        }
        rtcCommitGeometry(instance)
        try check("rtcSetGeometryTransform")
    }

    /// Rebuilds what changed since the last commit (the transforms), so queries see it.
    ///
    /// - Throws: ``BackbeatError/Code/rayTracer`` if Embree fails (out of memory).
    func commit() throws(BackbeatError) {
        rtcCommitScene(scene)
        try check("rtcCommitScene")
    }

    /// Whether anything lies on the segment from `start` to `end`, leaving
    /// `margin` metres free at each end (so a point on a surface does not
    /// block itself).
    ///
    /// - Parameters:
    ///   - start: One end of the segment.
    ///   - end: The other end.
    ///   - margin: Metres at each end where nothing counts.
    func isBlocked(from start: SIMD3<Float>, to end: SIMD3<Float>, margin: Float = 1e-4) -> Bool {
        let d = end - start
        let length = (d * d).sum().squareRoot()
        guard length > 2 * margin else { return false }
        return backbeat_rtc_occluded(
            scene, start.x, start.y, start.z, d.x, d.y, d.z, margin / length, 1 - margin / length)
            != 0
    }

    /// The nearest surface on the segment from `start` to `end` between
    /// `near` and `far` metres from `start`, if any.
    ///
    /// - Parameters:
    ///   - start: Where the segment starts.
    ///   - direction: Its direction, of length 1.
    ///   - near: Metres from `start` where the search begins.
    ///   - far: Metres from `start` where it ends.
    func nearestHit(from start: SIMD3<Float>, direction: SIMD3<Float>, near: Float, far: Float) -> Hit? {
        let hit = backbeat_rtc_intersect(
            scene, start.x, start.y, start.z, direction.x, direction.y, direction.z, near, far)
        guard hit.geomID != invalidID else { return nil }
        // Through an instance, geomID is the child scene's (always 0): the instance names the mesh.
        let geometry = hit.instID != invalidID ? Int(hit.instID) : Int(hit.geomID)
        return Hit(geometry: geometry, triangle: Int(hit.primID), distance: hit.t)
    }

    /// Every surface the segment from `start` to `end` crosses, nearest
    /// first, up to `limit` of them, by casting again past each hit
    /// (surfaces closer together than `margin` count once).
    ///
    /// - Parameters:
    ///   - start: One end of the segment.
    ///   - end: The other end.
    ///   - margin: Metres at each end where nothing counts, and the step past each hit.
    ///   - limit: The most surfaces reported.
    func hits(from start: SIMD3<Float>, to end: SIMD3<Float>, margin: Float = 1e-4, limit: Int = 64) -> [Hit] {
        let d = end - start
        let length = (d * d).sum().squareRoot()
        guard length > 2 * margin else { return [] }
        let direction = d / length
        var found: [Hit] = []
        var near = margin
        while found.count < limit,
            let hit = nearestHit(from: start, direction: direction, near: near, far: length - margin)
        {
            found.append(hit)
            near = hit.distance + margin
        }
        return found
    }

    /// Raw `rtcOccluded1` on a segment, for benchmarks comparing the door with Embree itself.
    ///
    /// - Parameters:
    ///   - origin: The ray's origin.
    ///   - direction: The ray's direction (any length; `far` is in its units).
    ///   - near: Where the ray starts.
    ///   - far: Where the ray ends.
    package func rawOccluded(origin: SIMD3<Float>, direction: SIMD3<Float>, near: Float = 0, far: Float) -> Bool {
        var context = RTCIntersectContext()
        rtcInitIntersectContext(&context)
        var ray = RTCRay()
        ray.org_x = origin.x
        ray.org_y = origin.y
        ray.org_z = origin.z
        ray.dir_x = direction.x
        ray.dir_y = direction.y
        ray.dir_z = direction.z
        ray.tnear = near
        ray.tfar = far
        ray.mask = .max
        rtcOccluded1(scene, &context, &ray)
        return ray.tfar < 0
    }
}
