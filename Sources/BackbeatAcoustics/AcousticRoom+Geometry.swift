extension AcousticRoom {
    /// The volume the room's surface encloses, in cubic metres (the
    /// divergence theorem over its triangles; either winding).
    var volume: Float {
        var sum: Float = 0
        for index in mesh.triangles.indices {
            let (a, b, c) = mesh.corners(ofTriangle: index)
            sum += dot(a, cross(b, c))
        }
        return abs(sum) / 6
    }

    /// The area of the room's surface in square metres.
    var surfaceArea: Float {
        mesh.triangles.indices.reduce(0) { $0 + mesh.area(ofTriangle: $1) }
    }

    /// How many edges of the room's surface are not shared by exactly two
    /// triangles (0 for a closed surface). Corners at the same position are
    /// the same corner, so a mesh exported with split vertices still closes.
    var openEdgeCount: Int {
        var ids: [SIMD3<Float>: Int] = [:]
        func id(_ v: SIMD3<Float>) -> Int {
            if let known = ids[v] { return known }
            ids[v] = ids.count
            return ids.count - 1
        }
        var edges: [SIMD2<Int>: Int] = [:]
        for index in mesh.triangles.indices {
            let (a, b, c) = mesh.corners(ofTriangle: index)
            let corners = [id(a), id(b), id(c)]
            for k in 0..<3 {
                let i = corners[k]
                let j = corners[(k + 1) % 3]
                edges[SIMD2(min(i, j), max(i, j)), default: 0] += 1
            }
        }
        return edges.values.count { $0 != 2 }
    }

    /// Whether `point` is inside the room: an odd number of the room's
    /// triangles cross a ray from it (in a direction no axis-aligned level
    /// lines up with).
    ///
    /// - Parameter point: A point in level coordinates.
    func contains(_ point: SIMD3<Float>) -> Bool {
        let direction = normalized(SIMD3<Float>(1, 0.000_123_4, 0.000_456_7))
        var crossings = 0
        for index in mesh.triangles.indices {
            let (a, b, c) = mesh.corners(ofTriangle: index)
            if rayCrossesTriangle(origin: point, direction: direction, a, b, c) { crossings += 1 }
        }
        return crossings % 2 == 1
    }
}
