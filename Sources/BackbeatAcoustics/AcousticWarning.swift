/// Something wrong with a level that Backbeat worked around: what, where, how many.
public struct AcousticWarning: Sendable, Equatable, CustomStringConvertible {
    /// The kind of problem.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }

        /// Triangles with no area (repeated or collinear corners) were dropped.
        public static let degenerateTriangles = Kind(name: "degenerate triangles dropped")
        /// A `usemtl` named no preset; those surfaces are generic.
        public static let unknownMaterial = Kind(name: "unknown material, generic used")
        /// A room's surface has holes (edges not shared by exactly two triangles).
        public static let roomNotClosed = Kind(name: "room not closed")
        /// A portal touches no room.
        public static let portalTouchesNoRoom = Kind(name: "portal touches no room")
    }

    /// The kind of problem.
    public let kind: Kind
    /// The mesh, room, portal or material it concerns.
    public let subject: String
    /// How many things it concerns (triangles dropped, open edges).
    public let count: Int

    /// One line: `subject: kind (count)`.
    public var description: String { "\(subject): \(kind)\(count > 1 ? " (\(count))" : "")" }
}
