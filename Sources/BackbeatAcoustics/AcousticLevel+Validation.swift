import BackbeatSupport

extension AcousticLevel {
    /// The level made safe to cast rays in: degenerate triangles dropped and
    /// counted in ``warnings``, with warnings for rooms that are not closed
    /// and portals that touch no room.
    ///
    /// A vertex that is NaN, infinite or farther than ``maximumCoordinate``
    /// is an error, not a warning: dropping it would open a hole in a wall
    /// that lets sound through without anyone noticing.
    ///
    /// - Throws: ``BackbeatError/Code/levelTooLarge`` above ``maximumTriangleCount``
    ///   triangles; ``BackbeatError/Code/invalidGeometry`` for a bad vertex,
    ///   an index out of range or a portal that is not a finite quad.
    func validated() throws(BackbeatError) -> AcousticLevel {
        let count = triangleCount
        guard count <= Self.maximumTriangleCount else {
            throw BackbeatError(
                .levelTooLarge, operation: "AcousticLevel",
                reason: "\(count) triangles; at most \(Self.maximumTriangleCount)")
        }
        var level = self
        var warnings = warnings
        level.staticMeshes = try staticMeshes.map { mesh throws(BackbeatError) in try mesh.validated(&warnings) }
        level.movableMeshes = try movableMeshes.map { mesh throws(BackbeatError) in try mesh.validated(&warnings) }
        for index in rooms.indices {
            level.rooms[index].mesh = try rooms[index].mesh.validated(&warnings)
            let open = level.rooms[index].openEdgeCount
            if open > 0 {
                warnings.append(AcousticWarning(kind: .roomNotClosed, subject: rooms[index].name, count: open))
            }
        }
        for portal in portals {
            guard portal.corners.count == 4,
                portal.corners.allSatisfy({ v in (0..<3).allSatisfy { abs(v[$0]) <= Self.maximumCoordinate } }),
                portal.area > 1e-6
            else {
                throw BackbeatError(
                    .invalidGeometry, operation: "AcousticPortal",
                    reason: "\(portal.name.prefix(64)): a portal is a quad of four finite corners with an area")
            }
            if level.rooms(besidePortal: portal).isEmpty {
                warnings.append(AcousticWarning(kind: .portalTouchesNoRoom, subject: portal.name, count: 1))
            }
        }
        level.warnings = warnings
        return level
    }

    /// The rooms on either side of `portal` (a point 10 cm in front of its
    /// centre and one 10 cm behind), at most two, front first.
    ///
    /// - Parameter portal: A portal of this level.
    func rooms(besidePortal portal: AcousticPortal) -> [Int] {
        let step = portal.normal * 0.1
        var found: [Int] = []
        for probe in [portal.centre + step, portal.centre - step] {
            if let room = rooms.indices.first(where: { rooms[$0].contains(probe) }), !found.contains(room) {
                found.append(room)
            }
        }
        return found
    }
}

extension AcousticMesh {
    /// The mesh without its degenerate triangles (counted in `warnings`).
    ///
    /// - Parameter warnings: Where a warning goes when triangles are dropped.
    /// - Throws: ``BackbeatError/Code/invalidGeometry`` for a vertex that is not
    ///   finite or too far, or an index out of range.
    func validated(_ warnings: inout [AcousticWarning]) throws(BackbeatError) -> AcousticMesh {
        let limit = AcousticLevel.maximumCoordinate
        if let bad = vertices.firstIndex(where: { v in !(0..<3).allSatisfy { abs(v[$0]) <= limit } }) {
            throw BackbeatError(
                .invalidGeometry, operation: "AcousticMesh",
                reason: "\(name.prefix(64)): vertex \(bad) is \(vertices[bad]), not finite within ±\(Int(limit)) m")
        }
        let vertexCount = UInt32(clamping: vertices.count)
        if let bad = triangles.firstIndex(where: { t in t.x >= vertexCount || t.y >= vertexCount || t.z >= vertexCount }
        ) {
            throw BackbeatError(
                .invalidGeometry, operation: "AcousticMesh",
                reason: "\(name.prefix(64)): triangle \(bad) uses a vertex beyond the \(vertices.count) there are")
        }
        let kept = filteringTriangles { area(ofTriangle: $0) > 1e-10 }
        let dropped = triangles.count - kept.triangles.count
        if dropped > 0 { warnings.append(AcousticWarning(kind: .degenerateTriangles, subject: name, count: dropped)) }
        return kept
    }
}
