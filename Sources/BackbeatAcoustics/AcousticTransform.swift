#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where a movable mesh is: a rotation and scale (three column vectors) and a
/// translation, from the mesh's own coordinates to the level's, in metres.
public struct AcousticTransform: Sendable, Equatable {
    /// Where the mesh's x axis points, in level coordinates.
    public var x: SIMD3<Float>
    /// Where the mesh's y axis points.
    public var y: SIMD3<Float>
    /// Where the mesh's z axis points.
    public var z: SIMD3<Float>
    /// Where the mesh's origin is.
    public var translation: SIMD3<Float>

    /// The mesh where it was made.
    public static let identity = AcousticTransform(translation: .zero)

    /// A transform from its columns.
    ///
    /// - Parameters:
    ///   - x: The image of the x axis.
    ///   - y: The image of the y axis.
    ///   - z: The image of the z axis.
    ///   - translation: The image of the origin.
    public init(x: SIMD3<Float>, y: SIMD3<Float>, z: SIMD3<Float>, translation: SIMD3<Float>) {
        self.x = x
        self.y = y
        self.z = z
        self.translation = translation
    }

    /// A move without rotation.
    ///
    /// - Parameter translation: Where the mesh's origin goes.
    public init(translation: SIMD3<Float>) {
        self.init(x: [1, 0, 0], y: [0, 1, 0], z: [0, 0, 1], translation: translation)
    }

    /// A turn about the vertical (y) axis, then a move, as a vehicle or a door turns.
    ///
    /// - Parameters:
    ///   - yaw: The turn in radians, counter-clockwise seen from above.
    ///   - translation: Where the mesh's origin goes.
    public init(yaw: Float, translation: SIMD3<Float>) {
        let c = Float(cos(Double(yaw)))
        let s = Float(sin(Double(yaw)))
        self.init(x: [c, 0, -s], y: [0, 1, 0], z: [s, 0, c], translation: translation)
    }

    /// Whether every component is finite.
    var isFinite: Bool {
        [x, y, z, translation].allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }
    }

    /// Where `point` (in the mesh's coordinates) is in the level.
    ///
    /// - Parameter point: A point in the mesh's own coordinates.
    func apply(_ point: SIMD3<Float>) -> SIMD3<Float> {
        x * point.x + y * point.y + z * point.z + translation
    }

    /// Embree's RTC_FORMAT_FLOAT3X4_COLUMN_MAJOR layout.
    var columnMajor3x4: [Float] {
        [x.x, x.y, x.z, y.x, y.y, y.z, z.x, z.y, z.z, translation.x, translation.y, translation.z]
    }
}
