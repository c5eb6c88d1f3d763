/// Quads and boxes into one vertex and triangle list.
struct WallBuilder {
    enum Axis { case x, z }
    var vertices: [SIMD3<Float>] = []
    var triangles: [SIMD3<UInt32>] = []

    /// Adds the quad abcd (corners in order) as two triangles.
    mutating func quad(_ a: SIMD3<Float>, _ b: SIMD3<Float>, _ c: SIMD3<Float>, _ d: SIMD3<Float>) {
        let base = UInt32(vertices.count)
        vertices += [a, b, c, d]
        triangles += [[base, base + 1, base + 2], [base, base + 2, base + 3]]
    }

    /// Adds a thin wall at `position` on one axis, running along the other
    /// from `start` to `end`, `height` high, with a 1 m × 2 m doorway in its middle.
    mutating func wallWithDoor(along axis: Axis, at position: Float, from start: Float, to end: Float, height: Float) {
        func p(_ along: Float, _ y: Float) -> SIMD3<Float> {
            axis == .z ? [position, y, along] : [along, y, position]
        }
        let middle = (start + end) / 2
        quad(p(start, 0), p(middle - 0.5, 0), p(middle - 0.5, height), p(start, height))
        quad(p(middle + 0.5, 0), p(end, 0), p(end, height), p(middle + 0.5, height))
        quad(p(middle - 0.5, 2), p(middle + 0.5, 2), p(middle + 0.5, height), p(middle - 0.5, height))
    }

    /// Adds a closed box from corner `l` to corner `h`.
    mutating func box(from l: SIMD3<Float>, to h: SIMD3<Float>) {
        quad([l.x, l.y, l.z], [l.x, h.y, l.z], [h.x, h.y, l.z], [h.x, l.y, l.z])
        quad([l.x, l.y, h.z], [h.x, l.y, h.z], [h.x, h.y, h.z], [l.x, h.y, h.z])
        quad([l.x, l.y, l.z], [h.x, l.y, l.z], [h.x, l.y, h.z], [l.x, l.y, h.z])
        quad([l.x, h.y, l.z], [l.x, h.y, h.z], [h.x, h.y, h.z], [h.x, h.y, l.z])
        quad([l.x, l.y, l.z], [l.x, l.y, h.z], [l.x, h.y, h.z], [l.x, h.y, l.z])
        quad([h.x, l.y, l.z], [h.x, h.y, l.z], [h.x, h.y, h.z], [h.x, l.y, h.z])
    }
}
