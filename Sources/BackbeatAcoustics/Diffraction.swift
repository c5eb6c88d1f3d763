#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Diffraction over an edge: Maekawa's barrier formula, the loss of a thin
/// screen by how far the path around it bends.
enum Diffraction {
    /// Maekawa's insertion loss in decibels for Fresnel number `n`:
    /// IL = 5 + 20·log10(√(2πN) / tanh √(2πN)), 5 dB at the shadow boundary (N = 0).
    ///
    /// - Parameter n: The Fresnel number 2δ/λ (δ the detour, λ the wavelength); below 0 counts as 0.
    static func maekawaLoss(fresnelNumber n: Float) -> Float {
        let x = (2 * Float.pi * max(n, 0)).squareRoot()
        // x / tanh x tends to 1 as x goes to 0.
        let ratio = x < 1e-4 ? 1 : x / tanh(x)
        return 5 + 20 * log10(ratio)
    }

    /// The Fresnel number of a detour at a frequency: N = 2δ/λ.
    ///
    /// - Parameters:
    ///   - detour: How much longer the bent path is than the straight one, in metres.
    ///   - frequency: The frequency in hertz.
    static func fresnelNumber(detour: Float, frequency: Float) -> Float {
        2 * detour * frequency / AcousticBands.speedOfSound
    }

    /// The amplitude gain of a path bent by `detour` metres, per band, at the
    /// bands' ``AcousticBands/centreFrequencies``.
    ///
    /// - Parameter detour: The bent path's length minus the straight path's, in metres.
    static func gains(detour: Float) -> AcousticBands {
        AcousticBands.centreFrequencies.map { f in
            pow(10, -maekawaLoss(fresnelNumber: fresnelNumber(detour: detour, frequency: f)) / 20)
        }
    }

    /// The point of segment [a, b] on the shortest path from `source` to
    /// `listener` that touches it. The path's length is convex along the
    /// edge, so the unconstrained optimum (equal angles with the edge,
    /// Keller's law), clamped to the segment, is the answer.
    ///
    /// - Parameters:
    ///   - a: One end of the edge.
    ///   - b: The other end.
    ///   - source: Where the sound starts.
    ///   - listener: Where it is heard.
    static func bendPoint(
        onEdge a: SIMD3<Float>, _ b: SIMD3<Float>, from source: SIMD3<Float>, to listener: SIMD3<Float>
    ) -> SIMD3<Float> {
        let edge = b - a
        let edgeLength = length(edge)
        guard edgeLength > 0 else { return a }
        let u = edge / edgeLength
        let sAlong = dot(source - a, u)
        let lAlong = dot(listener - a, u)
        let sAway = length(source - a - u * sAlong)
        let lAway = length(listener - a - u * lAlong)
        let along = sAway + lAway > 0 ? sAlong + (lAlong - sAlong) * sAway / (sAway + lAway) : sAlong
        return a + u * min(max(along, 0), edgeLength)
    }
}
