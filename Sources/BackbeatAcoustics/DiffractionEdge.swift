/// An edge sound can bend around: a mesh's boundary (used by one triangle)
/// or a crease (two triangles not in one plane). Edges inside a flat surface
/// (a quad's diagonal) bend nothing and are left out.
struct DiffractionEdge {
    let a: SIMD3<Float>
    let b: SIMD3<Float>
    /// Perpendicular to the edge, pointing away from the surface(s) it bounds:
    /// a bend point is moved this way a little, so the paths to it leave the
    /// surface instead of grazing it, and pass through an opening it borders.
    var outward: SIMD3<Float>
    /// The edge's direction (unit length) and length: a path around the
    /// edge is no shorter than the distances from its two ends to the edge,
    /// a bound that spares most edges of a big piece the bend point's work.
    private let direction: SIMD3<Float>
    private let edgeLength: Float

    /// An edge from `a` to `b`.
    ///
    /// - Parameters:
    ///   - a: One end.
    ///   - b: The other end.
    ///   - outward: Perpendicular to the edge, away from the surfaces it bounds (unit length).
    init(a: SIMD3<Float>, b: SIMD3<Float>, outward: SIMD3<Float>) {
        self.a = a
        self.b = b
        self.outward = outward
        edgeLength = length(b - a)
        direction = edgeLength > 0 ? (b - a) / edgeLength : .zero
    }

    /// A length no path from `source` to `listener` that touches the edge is
    /// shorter than: the sum of their distances to the edge.
    ///
    /// - Parameters:
    ///   - source: Where the sound starts.
    ///   - listener: Where it is heard.
    func shortestPathBound(from source: SIMD3<Float>, to listener: SIMD3<Float>) -> Float {
        func distance(_ p: SIMD3<Float>) -> Float {
            let w = p - a
            let along = min(max(dot(w, direction), 0), edgeLength)
            return length(w - direction * along)
        }
        return distance(source) + distance(listener)
    }

    /// Perpendicular to the edge and to ``outward``: across the surface, for
    /// the probe that checks a bend point is in the open.
    var across: SIMD3<Float> { normalized(cross(b - a, outward)) }

    /// The edges of `mesh` sound can bend around. Corners at one position are
    /// one corner, so a mesh exported with split vertices keeps its creases.
    ///
    /// - Parameter mesh: A validated mesh (no degenerate triangles).
    static func edges(of mesh: AcousticMesh) -> [DiffractionEdge] {
        var ids: [SIMD3<Float>: Int] = [:]
        var positions: [SIMD3<Float>] = []
        func id(_ v: SIMD3<Float>) -> Int {
            if let known = ids[v] { return known }
            ids[v] = positions.count
            positions.append(v)
            return positions.count - 1
        }
        // Each edge's triangles, by the third corner's id.
        var sides: [SIMD2<Int>: [Int]] = [:]
        for index in mesh.triangles.indices {
            let (p, q, r) = mesh.corners(ofTriangle: index)
            let c = [id(p), id(q), id(r)]
            for k in 0..<3 {
                let i = c[k]
                let j = c[(k + 1) % 3]
                sides[SIMD2(min(i, j), max(i, j)), default: []].append(c[(k + 2) % 3])
            }
        }
        var edges: [DiffractionEdge] = []
        for (key, thirds) in sides where thirds.count <= 2 {
            let a = positions[key.x]
            let b = positions[key.y]
            let u = normalized(b - a)
            // From the edge towards each triangle, perpendicular to the edge.
            let inward = thirds.map { third -> SIMD3<Float> in
                let w = positions[third] - a
                return normalized(w - u * dot(w, u))
            }
            if inward.count == 2 {
                // Coplanar and on opposite sides: a flat surface's inner edge.
                if dot(inward[0], inward[1]) < -0.9999 { continue }
            }
            let outward = normalized(-inward.reduce(.zero, +))
            guard outward != .zero else { continue }
            edges.append(DiffractionEdge(a: a, b: b, outward: outward))
        }
        // Dictionary order is not stable between runs; results must be.
        edges.sort {
            ($0.a.x, $0.a.y, $0.a.z, $0.b.x, $0.b.y, $0.b.z) < ($1.a.x, $1.a.y, $1.a.z, $1.b.x, $1.b.y, $1.b.z)
        }
        return edges
    }

    /// The edge moved by `transform` (a movable mesh's edge in level coordinates).
    ///
    /// - Parameter transform: Where the mesh is.
    func transformed(by transform: AcousticTransform) -> DiffractionEdge {
        let origin = transform.apply(.zero)
        return DiffractionEdge(
            a: transform.apply(a), b: transform.apply(b), outward: normalized(transform.apply(outward) - origin))
    }
}
