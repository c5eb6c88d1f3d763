/// A point or vector in the listener's world, in metres (AVAudio3DPoint).
///
/// OpenAL's coordinates: +X is right, +Y is up, and a listener that has not
/// turned faces -Z.
public struct Audio3DPoint: Sendable, Hashable, Codable {
    /// Metres along the X axis (right).
    public var x: Float
    /// Metres along the Y axis (up).
    public var y: Float
    /// Metres along the Z axis (towards the listener's back).
    public var z: Float

    /// A point from its three coordinates, in metres.
    public init(x: Float, y: Float, z: Float) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The origin, where the listener stands until it moves.
    public static let zero = Audio3DPoint(x: 0, y: 0, z: 0)

    /// Whether every coordinate is a finite number (NaN and infinities are not).
    public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }
}
