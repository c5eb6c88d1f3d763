import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
/// A region of the world with a reverb of its own, like FMOD's Reverb3D or
/// Unity's reverb zones. Inside its shape the zone's reverb is the
/// environment; over ``fadeDistance`` outside it, it blends into what lies
/// around (other zones, or the engine's ``AudioEngine/reverbParameters``).
public struct ReverbZone: Sendable, Equatable {
    /// A zone's shape, in metres, in world coordinates.
    public enum Shape: Sendable, Equatable {
        /// A ball.
        case sphere(center: Audio3DPoint, radius: Float)
        /// An axis-aligned box with its full size on each axis.
        case box(center: Audio3DPoint, size: Audio3DPoint)
    }

    /// The zone's name, for your own bookkeeping.
    public var name: String
    /// Where the zone is.
    public var shape: Shape
    /// How far outside its shape the zone still counts, fading linearly to nothing (metres, ≥ 0).
    public var fadeDistance: Float
    /// The zone's reverb.
    public var reverb: AudioEnvironmentReverbParameters

    /// A zone; a negative or NaN fade distance is 0.
    ///
    /// - Parameters:
    ///   - name: The zone's name, for your own bookkeeping.
    ///   - shape: Where the zone is, in world metres.
    ///   - fadeDistance: Metres outside the shape over which its weight falls to 0.
    ///   - reverb: The room the zone sounds like.
    public init(name: String, shape: Shape, fadeDistance: Float, reverb: AudioEnvironmentReverbParameters) {
        self.name = name
        self.shape = shape
        self.fadeDistance = fadeDistance.isNaN ? 0 : max(0, fadeDistance)
        self.reverb = reverb
    }

    /// How far `point` lies outside the shape (0 inside).
    func distance(from point: Audio3DPoint) -> Float {
        switch shape {
        case .sphere(let c, let r):
            let dx = point.x - c.x
            let dy = point.y - c.y
            let dz = point.z - c.z
            return max(0, (dx * dx + dy * dy + dz * dz).squareRoot() - max(0, r))
        case .box(let c, let s):
            let dx = max(0, abs(point.x - c.x) - abs(s.x) / 2)
            let dy = max(0, abs(point.y - c.y) - abs(s.y) / 2)
            let dz = max(0, abs(point.z - c.z) - abs(s.z) / 2)
            return (dx * dx + dy * dy + dz * dz).squareRoot()
        }
    }

    /// The zone's weight at `point`: 1 inside, falling linearly to 0 at ``fadeDistance`` outside.
    ///
    /// - Parameter point: The point to weigh, in metres.
    /// - Returns: The weight, 0...1.
    public func weight(at point: Audio3DPoint) -> Float {
        guard point.isFinite else { return 0 }
        let d = distance(from: point)
        if d <= 0 { return 1 }
        guard fadeDistance > 0, d.isFinite else { return 0 }
        return max(0, 1 - d / fadeDistance)
    }
}
