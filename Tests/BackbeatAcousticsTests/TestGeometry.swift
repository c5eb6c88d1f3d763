import BackbeatAcoustics

/// Meshes the tests build levels from.
enum TestGeometry {
    /// A quad from four corners in order, as two triangles.
    static func quad(
        _ name: String, _ corners: [SIMD3<Float>], material: AcousticMaterial = .generic
    ) -> AcousticMesh {
        AcousticMesh(name: name, vertices: corners, triangles: [[0, 1, 2], [0, 2, 3]], material: material)
    }

    /// A thin wall in the plane z = `z`, spanning x and y.
    static func wall(
        _ name: String, z: Float, x: ClosedRange<Float>, y: ClosedRange<Float>, material: AcousticMaterial
    ) -> AcousticMesh {
        quad(
            name,
            [
                [x.lowerBound, y.lowerBound, z], [x.upperBound, y.lowerBound, z], [x.upperBound, y.upperBound, z],
                [x.lowerBound, y.upperBound, z],
            ], material: material)
    }

    /// A closed box (12 triangles, outward winding) from `low` to `high`.
    static func box(
        _ name: String, from low: SIMD3<Float>, to high: SIMD3<Float>, material: AcousticMaterial = .generic
    ) -> AcousticMesh {
        var vertices: [SIMD3<Float>] = []
        for i in 0..<8 {
            vertices.append(
                [i & 1 == 0 ? low.x : high.x, i & 2 == 0 ? low.y : high.y, i & 4 == 0 ? low.z : high.z])
        }
        let faces: [[UInt32]] = [
            [0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5],
        ]
        let triangles = faces.flatMap { f -> [SIMD3<UInt32>] in [[f[0], f[1], f[2]], [f[0], f[2], f[3]]] }
        return AcousticMesh(name: name, vertices: vertices, triangles: triangles, material: material)
    }

    /// A material that lets nothing through and absorbs nothing.
    static let opaque = try! AcousticMaterial(
        name: "opaque", absorption: AcousticBands(0), transmission: AcousticBands(0))
}

extension TestGeometry {
    /// Three rooms in a row along +X, 5 m each (a: -5...0, b: 0...5, c:
    /// 5...10; 10 m deep in z, 3 m high), concrete walls between, each wall
    /// with a 1 m × 2 m door at 3 ≤ z ≤ 4 (`ab` and `bc`), both `openness`.
    static func threeRooms(openness: Float = 1) -> AcousticLevel {
        func wall(_ name: String, x: Float) -> AcousticMesh {
            let corners: [SIMD3<Float>] = [
                [x, 0, -5], [x, 0, 3], [x, 3, 3], [x, 3, -5],  // beside the door
                [x, 0, 4], [x, 0, 5], [x, 3, 5], [x, 3, 4],  // the other side
                [x, 2, 3], [x, 2, 4],  // the lintel's lower corners
            ]
            let triangles: [SIMD3<UInt32>] = [[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7], [8, 9, 7], [8, 7, 2]]
            return AcousticMesh(name: name, vertices: corners, triangles: triangles, material: .concrete)
        }
        func door(_ name: String, x: Float) -> AcousticPortal {
            AcousticPortal(name: name, corners: [[x, 0, 3], [x, 0, 4], [x, 2, 4], [x, 2, 3]], openness: openness)
        }
        return AcousticLevel(
            staticMeshes: [
                wall("wall-ab", x: 0), wall("wall-bc", x: 5),
                box("shell", from: [-5, 0, -5], to: [10, 3, 5], material: .concrete),
            ],
            rooms: [
                AcousticRoom(name: "a", mesh: box("a", from: [-5, 0, -5], to: [0, 3, 5])),
                AcousticRoom(name: "b", mesh: box("b", from: [0, 0, -5], to: [5, 3, 5])),
                AcousticRoom(name: "c", mesh: box("c", from: [5, 0, -5], to: [10, 3, 5])),
            ],
            portals: [door("ab", x: 0), door("bc", x: 5)])
    }
}
