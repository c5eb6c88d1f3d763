import BackbeatSupport

extension BackbeatError.Code {
    /// Embree, the ray tracer, refused an operation (out of memory, an unsupported CPU).
    public static let rayTracer = Self("ray tracer error")
    /// A level's geometry is unusable: a vertex that is not finite or too far, an index out of range.
    public static let invalidGeometry = Self("invalid geometry")
    /// A level file could not be read or parsed; the reason starts with the line.
    public static let malformedLevel = Self("malformed level file")
    /// A level has more triangles than ``AcousticLevel/maximumTriangleCount``.
    public static let levelTooLarge = Self("level too large")
    /// A material's values are not finite or not within 0...1.
    public static let invalidMaterial = Self("invalid material")
    /// A portal, room or movable mesh name the scene has none by.
    public static let unknownAcousticObject = Self("unknown portal, room or mesh")
}
