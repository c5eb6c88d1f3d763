/// A mesh's diffraction edges grouped by connected piece (triangles joined
/// through shared corners: one crate, one wall), so a blocked path tries the
/// edges of the pieces that block it, not of the whole mesh: a level
/// exported as one mesh of a thousand crates costs one crate's edges.
struct MeshEdges {
    /// Each piece's edges.
    let pieces: [[DiffractionEdge]]
    /// Each piece's edges grouped for the nearest-edge search.
    let chunks: [EdgeChunks]
    /// Each triangle's piece.
    let pieceOfTriangle: [Int32]

    /// Groups `mesh`'s edges. Corners at one position are one corner.
    ///
    /// - Parameter mesh: A validated mesh (no degenerate triangles).
    init(mesh: AcousticMesh) {
        var ids: [SIMD3<Float>: Int32] = [:]
        var parent: [Int32] = []
        func id(_ v: SIMD3<Float>) -> Int32 {
            if let known = ids[v] { return known }
            let next = Int32(parent.count)
            ids[v] = next
            parent.append(next)
            return next
        }
        func root(_ i: Int32) -> Int32 {
            var i = i
            while parent[Int(i)] != i {
                parent[Int(i)] = parent[Int(parent[Int(i)])]
                i = parent[Int(i)]
            }
            return i
        }
        var firstCorner: [Int32] = []
        firstCorner.reserveCapacity(mesh.triangles.count)
        for index in mesh.triangles.indices {
            let (a, b, c) = mesh.corners(ofTriangle: index)
            let ia = id(a)
            for other in [id(b), id(c)] {
                let (ra, ro) = (root(ia), root(other))
                if ra != ro { parent[Int(ro)] = ra }
            }
            firstCorner.append(ia)
        }
        var pieceOfRoot: [Int32: Int32] = [:]
        func piece(_ corner: Int32) -> Int32 {
            let r = root(corner)
            if let known = pieceOfRoot[r] { return known }
            let next = Int32(pieceOfRoot.count)
            pieceOfRoot[r] = next
            return next
        }
        pieceOfTriangle = firstCorner.map(piece)
        var pieces = Array(repeating: [DiffractionEdge](), count: pieceOfRoot.count)
        for edge in DiffractionEdge.edges(of: mesh) {
            guard let corner = ids[edge.a] else { continue }
            pieces[Int(piece(corner))].append(edge)
        }
        self.pieces = pieces
        chunks = pieces.map(EdgeChunks.init(edges:))
    }
}
