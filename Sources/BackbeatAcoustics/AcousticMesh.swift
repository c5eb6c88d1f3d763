import BackbeatSupport

/// A triangle mesh with a material per triangle, like a `PHASEShape`: a wall,
/// a floor, a crate, or the surface that bounds a room.
///
/// ```swift
/// let wall = try AcousticMesh(
///     name: "wall", vertices: [[0, 0, 0], [4, 0, 0], [4, 3, 0], [0, 3, 0]],
///     triangles: [[0, 1, 2], [0, 2, 3]], material: .concrete)
/// ```
public struct AcousticMesh: Sendable {
    /// The mesh's name, for messages (an OBJ file's object name).
    public var name: String
    /// Its vertices, in metres (the level's coordinates; a movable mesh's own).
    public var vertices: [SIMD3<Float>]
    /// Its triangles, three indices into ``vertices`` each.
    public var triangles: [SIMD3<UInt32>]
    /// The materials its triangles use.
    public private(set) var materials: [AcousticMaterial]
    /// Each triangle's index in ``materials``; empty when there is one material.
    private(set) var triangleMaterials: [UInt16]

    /// A mesh of one material.
    ///
    /// - Parameters:
    ///   - name: Its name, for messages.
    ///   - vertices: Its vertices in metres.
    ///   - triangles: Three indices into `vertices` per triangle.
    ///   - material: What every triangle is made of.
    public init(
        name: String, vertices: [SIMD3<Float>], triangles: [SIMD3<UInt32>], material: AcousticMaterial = .generic
    ) {
        self.name = name
        self.vertices = vertices
        self.triangles = triangles
        self.materials = [material]
        self.triangleMaterials = []
    }

    /// A mesh whose triangles are of different materials.
    ///
    /// - Parameters:
    ///   - name: Its name, for messages.
    ///   - vertices: Its vertices in metres.
    ///   - triangles: Three indices into `vertices` per triangle.
    ///   - materials: The materials used (at most 65,536).
    ///   - triangleMaterials: For each triangle, its material's index in `materials`.
    /// - Throws: ``BackbeatError/Code/invalidGeometry`` when the counts disagree or an index is out of range.
    public init(
        name: String, vertices: [SIMD3<Float>], triangles: [SIMD3<UInt32>], materials: [AcousticMaterial],
        triangleMaterials: [Int]
    ) throws(BackbeatError) {
        guard !materials.isEmpty, materials.count <= 65536, triangleMaterials.count == triangles.count,
            triangleMaterials.allSatisfy({ $0 >= 0 && $0 < materials.count })
        else {
            throw BackbeatError(
                .invalidGeometry, operation: "AcousticMesh",
                reason: "\(name.prefix(64)): \(triangles.count) triangles need as many material indices "
                    + "within 0..<\(materials.count) (1...65,536 materials); got \(triangleMaterials.count)")
        }
        self.name = name
        self.vertices = vertices
        self.triangles = triangles
        self.materials = materials
        self.triangleMaterials = triangleMaterials.map { UInt16($0) }
    }

    /// The material of triangle `index`.
    ///
    /// - Parameter index: A triangle's index in ``triangles``.
    public func material(ofTriangle index: Int) -> AcousticMaterial {
        triangleMaterials.isEmpty ? materials[0] : materials[Int(triangleMaterials[index])]
    }

    /// The mesh with only the triangles `keep` says to keep, materials following.
    ///
    /// - Parameter keep: Whether to keep triangle `index`.
    func filteringTriangles(_ keep: (Int) -> Bool) -> AcousticMesh {
        var copy = self
        let kept = triangles.indices.filter(keep)
        copy.triangles = kept.map { triangles[$0] }
        if !triangleMaterials.isEmpty { copy.triangleMaterials = kept.map { triangleMaterials[$0] } }
        return copy
    }

    /// The triangle's corners.
    ///
    /// - Parameter index: A triangle's index in ``triangles``.
    func corners(ofTriangle index: Int) -> (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>) {
        let t = triangles[index]
        return (vertices[Int(t.x)], vertices[Int(t.y)], vertices[Int(t.z)])
    }

    /// The triangle's area in square metres.
    ///
    /// - Parameter index: A triangle's index in ``triangles``.
    func area(ofTriangle index: Int) -> Float {
        let (a, b, c) = corners(ofTriangle: index)
        return 0.5 * length(cross(b - a, c - a))
    }
}
