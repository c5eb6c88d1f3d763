import Testing

@testable import BackbeatAcoustics

@Suite struct RaySceneTests {
    static func mesh(_ m: AcousticMesh) -> RayScene.Mesh { RayScene.Mesh(vertices: m.vertices, triangles: m.triangles) }

    @Test func aWallBlocksWhatCrossesItAndNothingElse() throws {
        let wall = TestGeometry.wall("wall", z: 0, x: -1...1, y: -1...1, material: .concrete)
        let scene = try RayScene(staticMeshes: [Self.mesh(wall)], movableMeshes: [])
        #expect(scene.isBlocked(from: [0, 0, -1], to: [0, 0, 1]))
        #expect(!scene.isBlocked(from: [2, 0, -1], to: [2, 0, 1]))
        // Stops short of the wall.
        #expect(!scene.isBlocked(from: [0, 0, -1], to: [0, 0, -0.01]))
        #expect(scene.hits(from: [0, 0, -1], to: [0, 0, 1]).map(\.geometry) == [0])
    }

    @Test func hitsListEverySurfaceNearestFirst() throws {
        let walls = [0, 1, 2].map { z in
            Self.mesh(TestGeometry.wall("w\(z)", z: Float(z), x: -1...1, y: -1...1, material: .generic))
        }
        let scene = try RayScene(staticMeshes: walls, movableMeshes: [])
        let hits = scene.hits(from: [0, 0, -1], to: [0, 0, 3])
        #expect(hits.map(\.geometry) == [0, 1, 2])
        #expect(hits.map(\.distance).map { ($0 * 1000).rounded() / 1000 } == [1, 2, 3])
        // From the other side, the other order.
        #expect(scene.hits(from: [0, 0, 3], to: [0, 0, -1]).map(\.geometry) == [2, 1, 0])
        // At most `limit`.
        #expect(scene.hits(from: [0, 0, -1], to: [0, 0, 3], limit: 2).count == 2)
    }

    @Test func aMovableMeshIsWhereItsTransformPutsIt() throws {
        let panel = TestGeometry.wall("panel", z: 0, x: -1...1, y: -1...1, material: .metal)
        let scene = try RayScene(staticMeshes: [], movableMeshes: [Self.mesh(panel)])
        #expect(scene.isBlocked(from: [0, 0, -1], to: [0, 0, 1]))
        try scene.setTransform(AcousticTransform(translation: [10, 0, 0]), ofMovable: 0)
        try scene.commit()
        #expect(!scene.isBlocked(from: [0, 0, -1], to: [0, 0, 1]))
        #expect(scene.isBlocked(from: [10, 0, -1], to: [10, 0, 1]))
        let hit = try #require(scene.hits(from: [10, 0, -1], to: [10, 0, 1]).first)
        #expect(hit.geometry == 0)
    }

    @Test func rawOcclusionAgreesWithTheDoor() throws {
        let wall = TestGeometry.wall("wall", z: 0, x: -1...1, y: -1...1, material: .concrete)
        let scene = try RayScene(staticMeshes: [Self.mesh(wall)], movableMeshes: [])
        for x in stride(from: Float(-2), through: 2, by: 0.25) {
            let blocked = scene.isBlocked(from: [x, 0.5, -1], to: [x, 0.5, 1])
            #expect(scene.rawOccluded(origin: [x, 0.5, -1], direction: [0, 0, 2], far: 1) == blocked, "x \(x)")
        }
    }
}
