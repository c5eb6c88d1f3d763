/// A piece's diffraction edges in small groups of near ones, each inside a
/// sphere: a path around the piece looks first in the group the sphere
/// bound says is nearest, then skips every group that cannot hold an edge
/// nearer than the ones it kept. A wall piece of a big level has thousands
/// of edges; a path needs its eight nearest.
struct EdgeChunks {
    /// A group of edges: a sphere holding them, and where its edges' indices are in ``order``.
    struct Chunk {
        var centre: SIMD3<Float>
        var radius: Float
        var range: Range<Int>

        /// A length no path from `source` to `listener` through the sphere is shorter than.
        ///
        /// - Parameters:
        ///   - source: Where the sound starts.
        ///   - listener: Where it is heard.
        func shortestPathBound(from source: SIMD3<Float>, to listener: SIMD3<Float>) -> Float {
            max(0, length(source - centre) - radius) + max(0, length(listener - centre) - radius)
        }
    }

    /// Edges a group holds (the last may hold fewer).
    static let size = 16

    /// The groups.
    let chunks: [Chunk]
    /// The piece's edge indices, group after group.
    let order: [Int32]

    /// Groups `edges` along a Morton curve through their midpoints, so each group is compact.
    ///
    /// - Parameter edges: A piece's edges.
    init(edges: [DiffractionEdge]) {
        guard !edges.isEmpty else {
            (chunks, order) = ([], [])
            return
        }
        let centres = edges.map { ($0.a + $0.b) / 2 }
        var low = centres[0]
        var high = centres[0]
        for c in centres {
            low = pointwiseMin(low, c)
            high = pointwiseMax(high, c)
        }
        let span = pointwiseMax(high - low, SIMD3(repeating: 1e-6))
        func key(_ c: SIMD3<Float>) -> UInt32 {
            let q = (c - low) / span * 1023
            var code: UInt32 = 0
            let (x, y, z) = (UInt32(q.x), UInt32(q.y), UInt32(q.z))
            for bit in 0..<10 {
                code |=
                    ((x >> bit) & 1) << (3 * bit) | ((y >> bit) & 1) << (3 * bit + 1) | ((z >> bit) & 1)
                    << (3 * bit + 2)
            }
            return code
        }
        let keys = centres.map(key)
        let order = edges.indices.sorted { keys[$0] != keys[$1] ? keys[$0] < keys[$1] : $0 < $1 }.map { Int32($0) }
        var chunks: [Chunk] = []
        var start = 0
        while start < order.count {
            let end = min(start + Self.size, order.count)
            var lo = edges[Int(order[start])].a
            var hi = lo
            for i in start..<end {
                let e = edges[Int(order[i])]
                lo = pointwiseMin(lo, pointwiseMin(e.a, e.b))
                hi = pointwiseMax(hi, pointwiseMax(e.a, e.b))
            }
            let centre = (lo + hi) / 2
            var radius: Float = 0
            for i in start..<end {
                let e = edges[Int(order[i])]
                radius = max(radius, length(e.a - centre), length(e.b - centre))
            }
            // A hair more, so rounding never puts an edge's point outside.
            chunks.append(Chunk(centre: centre, radius: radius * 1.0001 + 1e-5, range: start..<end))
            start = end
        }
        (self.chunks, self.order) = (chunks, order)
    }
}
