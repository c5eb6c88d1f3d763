import BackbeatSupport
import Testing

@testable import BackbeatAcoustics

@Suite struct AcousticLevelTests {
    @Test func degenerateTrianglesAreDroppedAndCounted() throws {
        let mesh = AcousticMesh(
            name: "floor", vertices: [[0, 0, 0], [1, 0, 0], [1, 0, 1], [2, 0, 0]],
            triangles: [[0, 1, 2], [0, 0, 1], [0, 1, 3]])
        let scene = try AcousticScene(level: AcousticLevel(staticMeshes: [mesh]))
        #expect(scene.triangleCount == 1)
        #expect(scene.warnings == [AcousticWarning(kind: .degenerateTriangles, subject: "floor", count: 2)])
    }

    @Test(arguments: [Float.nan, .infinity, -.infinity, 2e6])
    func aVertexThatIsNotFiniteIsAnError(_ bad: Float) {
        let mesh = AcousticMesh(
            name: "wall", vertices: [[0, 0, 0], [1, 0, 0], [1, bad, 1]], triangles: [[0, 1, 2]])
        #expect {
            try AcousticScene(level: AcousticLevel(staticMeshes: [mesh]))
        } throws: { ($0 as? BackbeatError)?.code == .invalidGeometry }
    }

    @Test func anIndexOutOfRangeIsAnError() {
        let mesh = AcousticMesh(name: "wall", vertices: [[0, 0, 0], [1, 0, 0], [1, 1, 1]], triangles: [[0, 1, 3]])
        #expect {
            try AcousticScene(level: AcousticLevel(staticMeshes: [mesh]))
        } throws: { ($0 as? BackbeatError)?.code == .invalidGeometry }
    }

    @Test func perTriangleMaterialsAreChecked() throws {
        let vertices: [SIMD3<Float>] = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]]
        let mesh = try AcousticMesh(
            name: "wall", vertices: vertices, triangles: [[0, 1, 2], [0, 2, 3]], materials: [.glass, .brick],
            triangleMaterials: [1, 0])
        #expect(mesh.material(ofTriangle: 0) == .brick)
        #expect(mesh.material(ofTriangle: 1) == .glass)
        #expect(throws: BackbeatError.self) {
            try AcousticMesh(
                name: "wall", vertices: vertices, triangles: [[0, 1, 2]], materials: [.glass], triangleMaterials: [1])
        }
        #expect(throws: BackbeatError.self) {
            try AcousticMesh(
                name: "wall", vertices: vertices, triangles: [[0, 1, 2]], materials: [.glass], triangleMaterials: [])
        }
    }

    @Test func anUnclosedRoomAndALonelyPortalAreWarnings() throws {
        var open = TestGeometry.box("hall", from: .zero, to: [4, 3, 4])
        open.triangles.removeLast(2)
        let level = AcousticLevel(
            rooms: [AcousticRoom(name: "hall", mesh: open)],
            portals: [AcousticPortal(name: "hatch", corners: [[50, 0, 0], [51, 0, 0], [51, 1, 0], [50, 1, 0]])])
        let scene = try AcousticScene(level: level)
        #expect(
            scene.warnings == [
                AcousticWarning(kind: .roomNotClosed, subject: "hall", count: 4),
                AcousticWarning(kind: .portalTouchesNoRoom, subject: "hatch", count: 1),
            ])
    }

    @Test func aPortalThatIsNoQuadIsAnError() {
        let level = AcousticLevel(portals: [
            AcousticPortal(name: "slit", corners: [[0, 0, 0], [1, 0, 0], [1, 1, 0]])
        ])
        #expect(throws: BackbeatError.self) { try AcousticScene(level: level) }
        let flat = AcousticLevel(portals: [
            AcousticPortal(name: "flat", corners: [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]])
        ])
        #expect(throws: BackbeatError.self) { try AcousticScene(level: flat) }
    }

    @Test func aLevelAboveTheTriangleLimitIsRefusedBeforeAnythingIsBuilt() {
        let count = AcousticLevel.maximumTriangleCount + 1
        let mesh = AcousticMesh(
            name: "huge", vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0]],
            triangles: Array(repeating: [0, 1, 2], count: count))
        #expect {
            try AcousticScene(level: AcousticLevel(staticMeshes: [mesh]))
        } throws: { ($0 as? BackbeatError)?.code == .levelTooLarge }
    }
}

@Suite struct EmptyLevelTests {
    @Test func aMeshLeftWithNoTrianglesStillMakesAScene() throws {
        let flat = AcousticMesh(name: "flat", vertices: [[0, 0, 0], [1, 0, 0], [2, 0, 0]], triangles: [[0, 1, 2]])
        let empty = AcousticMesh(name: "empty", vertices: [], triangles: [])
        let scene = try AcousticScene(level: AcousticLevel(staticMeshes: [flat, empty], movableMeshes: [empty]))
        #expect(scene.triangleCount == 0)
        #expect(scene.path(from: [0, 0, -1], to: [0, 0, 1]).visibleFraction == 1)
        #expect(try AcousticScene(level: AcousticLevel()).path(from: .zero, to: [1, 1, 1]).gains == AcousticBands(1))
    }
}
