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

/// A heading as three angles in degrees (AVAudio3DAngularOrientation).
///
/// Yaw turns about +Y (positive turns right), pitch about the listener's
/// right axis (positive looks up), roll about the facing direction (positive
/// tilts the head to the right). All zero faces -Z with +Y up.
public struct Audio3DAngularOrientation: Sendable, Hashable, Codable {
    /// Degrees turned right about the vertical axis.
    public var yaw: Float
    /// Degrees looked up.
    public var pitch: Float
    /// Degrees the head is tilted to the right.
    public var roll: Float

    /// An orientation from its three angles, in degrees.
    public init(yaw: Float, pitch: Float, roll: Float) {
        self.yaw = yaw
        self.pitch = pitch
        self.roll = roll
    }
}

/// A heading as two vectors (AVAudio3DVectorOrientation): where the listener
/// faces and which way is up over its head.
public struct Audio3DVectorOrientation: Sendable, Hashable, Codable {
    /// The direction the listener faces.
    public var forward: Audio3DPoint
    /// The direction over the listener's head.
    public var up: Audio3DPoint

    /// An orientation from its facing and up vectors (any length, not parallel).
    public init(forward: Audio3DPoint, up: Audio3DPoint) {
        self.forward = forward
        self.up = up
    }
}
