// The little vector algebra acoustics needs, on the standard library's SIMD3.

/// The cross product.
func cross(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

/// The dot product.
func dot(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float { (a * b).sum() }

/// The Euclidean length.
func length(_ a: SIMD3<Float>) -> Float { dot(a, a).squareRoot() }

/// `a` scaled to length 1 (zero stays zero).
func normalized(_ a: SIMD3<Float>) -> SIMD3<Float> {
    let l = length(a)
    return l > 0 ? a / l : a
}

/// Whether the ray from `origin` along `direction` crosses triangle abc
/// (Möller–Trumbore), at a positive distance.
///
/// - Parameters:
///   - origin: Where the ray starts.
///   - direction: Its direction.
///   - a: A corner.
///   - b: A corner.
///   - c: A corner.
func rayCrossesTriangle(
    origin: SIMD3<Float>, direction: SIMD3<Float>, _ a: SIMD3<Float>, _ b: SIMD3<Float>, _ c: SIMD3<Float>
) -> Bool {
    let e1 = b - a
    let e2 = c - a
    let p = cross(direction, e2)
    let det = dot(e1, p)
    guard abs(det) > 1e-12 else { return false }
    let inverse = 1 / det
    let s = origin - a
    let u = dot(s, p) * inverse
    guard u >= 0, u <= 1 else { return false }
    let q = cross(s, e1)
    let v = dot(direction, q) * inverse
    guard v >= 0, u + v <= 1 else { return false }
    return dot(e2, q) * inverse > 0
}
