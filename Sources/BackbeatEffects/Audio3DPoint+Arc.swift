#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Audio3DPoint {
    /// The dot product with `other`.
    ///
    /// - Parameter other: The other vector.
    func dot(_ other: Audio3DPoint) -> Float { x * other.x + y * other.y + z * other.z }

    /// The vector scaled to unit length, or nil when it is (nearly) zero or not finite.
    var unitOrNil: Audio3DPoint? {
        let length = dot(self).squareRoot()
        guard length > 1e-6, length.isFinite else { return nil }
        return Audio3DPoint(x: x / length, y: y / length, z: z / length)
    }

    /// The unit direction `fraction` of the way along the arc from this one
    /// (unit length) to `target` (unit length), at an even angular speed:
    /// a direction glide keeps its distance from the listener and turns
    /// around it. Opposite directions turn through `through` (the listener's
    /// facing: a voice moves from left to right in front of it), or any
    /// perpendicular when that is in line.
    ///
    /// - Parameters:
    ///   - target: Where the arc ends.
    ///   - fraction: How far along, 0...1.
    ///   - through: The direction opposite ends turn through.
    func arc(to target: Audio3DPoint, fraction: Float, through: Audio3DPoint) -> Audio3DPoint {
        let t = fraction.isNaN ? 1 : min(max(fraction, 0), 1)
        let cosine = min(max(dot(target), -1), 1)
        // The part of the target (or of `through`) perpendicular to this direction.
        func perpendicular(_ v: Audio3DPoint) -> Audio3DPoint? {
            let along = dot(v)
            return Audio3DPoint(x: v.x - x * along, y: v.y - y * along, z: v.z - z * along).unitOrNil
        }
        guard cosine < 0.99999,
            let side = cosine > -0.999
                ? perpendicular(target)
                : perpendicular(through) ?? perpendicular(Audio3DPoint(x: 0, y: 1, z: 0))
                    ?? perpendicular(Audio3DPoint(x: 1, y: 0, z: 0))
        else { return t >= 1 ? target : self }
        let angle = acos(cosine) * t
        let (c, s) = (cos(angle), sin(angle))
        return Audio3DPoint(x: x * c + side.x * s, y: y * c + side.y * s, z: z * c + side.z * s)
    }
}
