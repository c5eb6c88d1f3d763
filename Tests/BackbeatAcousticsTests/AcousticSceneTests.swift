import BackbeatSupport
import Testing

@testable import BackbeatAcoustics

#if canImport(Glibc)
import Glibc
#endif

@Suite struct AcousticSceneTests {
    @Test func aConcreteWallTakesThirtyDecibelsLowAndFortyFiveHigh() throws {
        let wall = TestGeometry.wall("wall", z: 0, x: -10...10, y: -10...10, material: .concrete)
        let scene = try AcousticScene(level: AcousticLevel(staticMeshes: [wall]))
        let path = scene.path(from: [0, 0, -1], to: [0, 0, 1])
        #expect(path.visibleFraction == 0)
        #expect(path.transmission == AcousticMaterial.concrete.transmission)
        let decibels = path.gains.decibels
        #expect(decibels.low <= -30)
        #expect(decibels.high <= -45)
        // The path around the wall's edge is far longer: it adds next to nothing.
        #expect(abs(decibels.low - 20 * log10(0.015)) < 0.5)
        // Beside the wall, nothing is lost.
        let open = scene.path(from: [20, 0, -1], to: [20, 0, 1])
        #expect(open.gains == AcousticBands(1))
        #expect(open.visibleFraction == 1)
    }

    @Test func eachSurfaceCrossedMultiplies() throws {
        let walls = [
            TestGeometry.wall("glass", z: 0, x: -10...10, y: -10...10, material: .glass),
            TestGeometry.wall("wood", z: 1, x: -10...10, y: -10...10, material: .wood),
        ]
        let scene = try AcousticScene(level: AcousticLevel(staticMeshes: walls))
        let path = scene.path(from: [0, 0, -1], to: [0, 0, 2])
        let expected = AcousticMaterial.glass.transmission.combined(with: AcousticMaterial.wood.transmission, *)
        #expect(path.transmission == expected)
    }

    /// A thin screen with one straight edge: listener and source 10 m either
    /// side, 1 m below the edge. What is heard is Maekawa's loss for the
    /// detour, within ±4 dB in every band (the 1/r of the longer path adds 0.04 dB).
    @Test func aThinScreenMatchesMaekawaInEachBand() throws {
        let screen = TestGeometry.wall("screen", z: 0, x: -100...100, y: -100...0, material: TestGeometry.opaque)
        let scene = try AcousticScene(level: AcousticLevel(staticMeshes: [screen]))
        let listener: SIMD3<Float> = [0, -1, -10]
        let source: SIMD3<Float> = [0, -1, 10]
        let path = scene.path(from: listener, to: source)
        let around = try #require(path.diffraction)
        #expect(around.bends == 1)
        #expect(abs(around.lastBend.y) < 1e-3 && abs(around.lastBend.z) < 1e-3)
        let detour = 2 * Float(101).squareRoot() - 20
        #expect(abs(around.length - 20 - detour) < 1e-3)
        let frequencies = AcousticBands.centreFrequencies.values
        for (band, (gain, frequency)) in zip(["low", "mid", "high"], zip(path.gains.values, frequencies)) {
            let formula = Diffraction.maekawaLoss(fresnelNumber: 2 * detour * frequency / 343)
            #expect(abs(-20 * log10(gain) - formula) < 4, "\(band): \(-20 * log10(gain)) dB, Maekawa \(formula) dB")
        }
        // The sound comes from over the edge.
        #expect(path.direction.y > 0)
    }

    @Test func aSourceHalfBehindAnEdgeIsHalfOccluded() throws {
        let screen = TestGeometry.wall("screen", z: 0, x: -100...100, y: -100...0, material: .concrete)
        let scene = try AcousticScene(level: AcousticLevel(staticMeshes: [screen]))
        let listener: SIMD3<Float> = [0, 0, -10]
        let open = scene.path(from: listener, to: [0, 20, 10], radius: 1)
        let blocked = scene.path(from: listener, to: [0, -20, 10], radius: 1)
        let half = scene.path(from: listener, to: [0, 0, 10], radius: 1)
        #expect(open.visibleFraction == 1)
        #expect(blocked.visibleFraction == 0)
        #expect(half.visibleFraction >= 0.3 && half.visibleFraction <= 0.7, "\(half.visibleFraction)")
        for band in 0..<3 {
            #expect(half.gains.values[band] < open.gains.values[band])
            #expect(half.gains.values[band] > blocked.gains.values[band])
        }
        // A point source on the same spot is one ray: all or nothing.
        #expect([0, 1].contains(scene.path(from: listener, to: [0, 0.01, 10]).visibleFraction))
    }

    @Test func aMovingOccluderIsHeardAtTheNextQuery() throws {
        let door = TestGeometry.wall("panel", z: 0, x: -5...5, y: -5...5, material: .metal)
        let scene = try AcousticScene(level: AcousticLevel(movableMeshes: [door]))
        try scene.setTransform(AcousticTransform(translation: [100, 0, 0]), ofMovableMesh: "panel")
        #expect(scene.path(from: [0, 0, -1], to: [0, 0, 1]).visibleFraction == 1)
        try scene.setTransform(AcousticTransform(translation: [0, 0, 0]), ofMovableMesh: "panel")
        let path = scene.path(from: [0, 0, -1], to: [0, 0, 1])
        #expect(path.visibleFraction == 0)
        #expect(path.transmission == AcousticMaterial.metal.transmission)
        #expect(throws: BackbeatError.self) {
            try scene.setTransform(.identity, ofMovableMesh: "nothing")
        }
        #expect(throws: BackbeatError.self) {
            try scene.setTransform(AcousticTransform(translation: [.nan, 0, 0]), ofMovableMesh: "panel")
        }
    }

    /// Two rooms side by side (x < 0 and x > 0), a concrete wall between
    /// with a doorway at 3 ≤ z ≤ 4, a portal in it; a voice in the other
    /// room out of sight of the doorway. A concrete shell (floor, ceiling,
    /// outer walls) closes them, so the only way round is the door.
    static func twoRooms() throws -> AcousticScene {
        let wall: [SIMD3<Float>] = [
            [0, 0, -5], [0, 0, 3], [0, 3, 3], [0, 3, -5],  // left of the door
            [0, 0, 4], [0, 0, 5], [0, 3, 5], [0, 3, 4],  // right of it
            [0, 2, 3], [0, 2, 4],  // the lintel's lower corners (its upper ones are 2 and 7)
        ]
        let triangles: [SIMD3<UInt32>] = [[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7], [8, 9, 7], [8, 7, 2]]
        let mesh = AcousticMesh(name: "wall", vertices: wall, triangles: triangles, material: .concrete)
        let level = AcousticLevel(
            staticMeshes: [mesh, TestGeometry.box("shell", from: [-5, 0, -5], to: [5, 3, 5], material: .concrete)],
            rooms: [
                AcousticRoom(name: "a", mesh: TestGeometry.box("a", from: [-5, 0, -5], to: [0, 3, 5])),
                AcousticRoom(name: "b", mesh: TestGeometry.box("b", from: [0, 0, -5], to: [5, 3, 5])),
            ],
            portals: [
                AcousticPortal(name: "door", corners: [[0, 0, 3], [0, 0, 4], [0, 2, 4], [0, 2, 3]], openness: 0)
            ])
        return try AcousticScene(level: level)
    }

    @Test func openingADoorRaisesAVoiceBehindTheWallAndMovesItToTheDoor() throws {
        let scene = try Self.twoRooms()
        #expect(scene.warnings.isEmpty, "\(scene.warnings)")
        let listener: SIMD3<Float> = [-1.5, 1, 1]
        let source: SIMD3<Float> = [1.5, 1, 1]
        #expect(scene.room(containing: listener) == "a")
        #expect(scene.room(containing: source) == "b")
        let closed = scene.path(from: listener, to: source)
        try scene.setOpenness(1, ofPortal: "door")
        let open = scene.path(from: listener, to: source)
        try scene.setOpenness(0.5, ofPortal: "door")
        let ajar = scene.path(from: listener, to: source)
        #expect(open.gains.decibels.mid - closed.gains.decibels.mid >= 15, "\(closed.gains) → \(open.gains)")
        #expect(ajar.gains.mid > closed.gains.mid && ajar.gains.mid < open.gains.mid)
        // Closed, it comes through the wall, straight; open, from the doorway's side (+z).
        #expect(closed.direction.z < 0.05)
        #expect(open.direction.z > 0.3)
        #expect(throws: BackbeatError.self) { try scene.setOpenness(1, ofPortal: "window") }
        #expect(throws: BackbeatError.self) { try scene.setOpenness(.nan, ofPortal: "door") }
    }
}
