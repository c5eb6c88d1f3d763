import BackbeatSupport
import Testing

@testable import BackbeatAcoustics

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@Suite struct OBJReaderTests {
    static func read(_ text: String) throws -> AcousticLevel {
        try AcousticLevel(objBytes: Array(text.utf8))
    }

    static func error(_ text: String) -> BackbeatError? {
        do {
            _ = try read(text)
            return nil
        } catch {
            return error as? BackbeatError
        }
    }

    /// Two rooms, a wall between them with a door, in the forms modelling tools write.
    static let level = """
        # a level
        mtllib level.mtl
        o room:hall
        v 0 0 0
        v 4 0 0
        v 4 3 0
        v 0 3 0
        v 0 0 4
        v 4 0 4
        v 4 3 4
        v 0 3 4
        usemtl Carpet
        f 1 4 3 2
        f 5 6 7 8
        f 1 2 6 5
        f 4 8 7 3
        f 1 5 8 4
        f 2 3 7 6
        g wall
        usemtl concrete
        v 2 0 -1
        v 2 0 5
        v 2 3 5
        v 2 3 -1
        vt 0 0
        vn 1 0 0
        s off
        f -4/1/1 -3/1/1 -2/1/1 -1/1/1
        o portal:door
        usemtl velvet
        v 2 0 1
        v 2 0 2
        v 2 2 2
        v 2 2 1
        f 13//1 14//1 15//1
        f 13/1 15/1 16/1
        o crate
        usemtl velvet
        f 1 2 3
        """

    @Test func readsObjectsRoomsPortalsAndMaterials() throws {
        let level = try Self.read(Self.level)
        #expect(level.rooms.map(\.name) == ["hall"])
        #expect(level.rooms[0].mesh.triangles.count == 12)
        #expect(level.rooms[0].mesh.material(ofTriangle: 0) == .carpet)
        #expect(level.staticMeshes.map(\.name) == ["wall", "crate"])
        // A quad is two triangles; `-4` is the fourth vertex from the end.
        let wall = level.staticMeshes[0]
        #expect(wall.triangles.count == 2)
        #expect(Set(wall.vertices) == [[2, 0, -1], [2, 0, 5], [2, 3, 5], [2, 3, -1]])
        #expect(wall.material(ofTriangle: 1) == .concrete)
        #expect(level.staticMeshes[1].material(ofTriangle: 0) == .generic)
        #expect(level.portals.map(\.name) == ["door"])
        #expect(level.portals[0].openness == 1)
        #expect(level.portals[0].material == .generic)
        #expect(Set(level.portals[0].corners) == [[2, 0, 1], [2, 0, 2], [2, 2, 2], [2, 2, 1]])
        #expect(abs(level.portals[0].area - 2) < 1e-5)
        // An unknown material is one warning, however often it is used.
        #expect(level.warnings == [AcousticWarning(kind: .unknownMaterial, subject: "velvet", count: 1)])
        let scene = try AcousticScene(level: level)
        #expect(scene.triangleCount == 12 + 2 + 1)
        #expect(scene.roomCount == 1 && scene.portalCount == 1)
    }

    @Test(arguments: [
        ("v 1 2\n", 1, "vertex"), ("v 1 2 x\n", 1, "not a number"), ("v 0 0 0\nf 1 2 3\n", 2, "out of range"),
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n", 4, "out of range"), ("v 0 0 0\nf 1 -2 1\n", 2, "out of range"),
        ("v 0 0 0\nf 1 1\n", 2, "at least 3"), ("v 0 0 0\nf 1/a 1 1\n", 2, "face corner"),
        ("v 0 0 0\nf 1/1/1/1 1 1\n", 2, "face corner"), ("\n\nbogus 1 2\n", 3, "unknown statement"),
        ("o\n", 1, "name"), ("usemtl\n", 1, "material"), ("v 0 0 0\nf 99999999999999999999999 1 1\n", 2, "face corner"),
    ])
    func badLinesAreErrorsNamingTheLine(_ text: String, _ line: Int, _ words: String) throws {
        let error = try #require(Self.error(text))
        #expect(error.code == .malformedLevel)
        let reason = error.reason ?? ""
        #expect(reason.hasPrefix("line \(line): "), "\(reason)")
        #expect(reason.contains(words), "\(reason)")
    }

    @Test(arguments: ["nan", "inf", "-inf", "1e39", "2000000"])
    func aVertexThatIsNotFiniteIsAnErrorAtItsLine(_ value: String) throws {
        let error = try #require(Self.error("# first\nv 0 \(value) 0\n"))
        #expect(error.code == .invalidGeometry)
        #expect(error.reason?.hasPrefix("line 2: ") == true)
    }

    @Test func aPortalThatIsNoQuadIsAnError() throws {
        let error = try #require(Self.error("o portal:gap\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"))
        #expect(error.code == .malformedLevel)
        #expect(error.reason?.contains("portal:gap") == true)
    }

    @Test func tooManyTrianglesAreRefusedAtTheirLine() throws {
        // One polygon of 1,000,003 corners: 1,000,001 triangles.
        var text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf"
        text += String(repeating: " 1 2 3", count: (AcousticLevel.maximumTriangleCount + 3) / 3 + 1)
        let error = try #require(Self.error(text))
        #expect(error.code == .levelTooLarge)
        #expect(error.reason?.hasPrefix("line 4: ") == true)
    }

    @Test func aMissingFileIsAnError() throws {
        let url = URL(fileURLWithPath: "/nonexistent/level.obj")
        #expect {
            try AcousticLevel(contentsOfOBJ: url)
        } throws: { ($0 as? BackbeatError)?.code == .malformedLevel && ($0 as? BackbeatError)?.url == url }
    }

    @Test func aFileIsReadWithItsName() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "acoustics-\(UInt32.random(in: 0...UInt32.max)).obj")
        try Data(Self.level.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let level = try AcousticLevel(contentsOfOBJ: url)
        #expect(level.rooms.count == 1)
        try Data("v 0 0 0\nf 1 2 3\n".utf8).write(to: url)
        #expect {
            try AcousticLevel(contentsOfOBJ: url)
        } throws: { ($0 as? BackbeatError)?.url == url }
    }

    @Test func degenerateAndUnclosedInputLoadsWithWarnings() throws {
        let text = """
            o room:shed
            v 0 0 0
            v 1 0 0
            v 1 1 0
            v 0 1 0
            f 1 2 3 4
            o wall
            f 1 1 2
            f 1 2 3
            o portal:nowhere
            v 9 9 9
            v 10 9 9
            v 10 10 9
            v 9 10 9
            f 5 6 7 8
            """
        let scene = try AcousticScene(level: Self.read(text))
        #expect(Set(scene.warnings.map(\.kind)) == [.roomNotClosed, .degenerateTriangles, .portalTouchesNoRoom])
    }

    /// Mangled copies of a good level, never a crash: each reads or throws.
    @Test func mangledInputNeverCrashes() {
        var random = SplitMix64(seed: 33)
        let original = Array(Self.level.utf8)
        let alphabet = Array("0123456789 -/.e\nfvogn#".utf8)
        for _ in 0..<300 {
            var bytes = original
            for _ in 0..<Int(random.next() % 8 + 1) {
                let at = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes[at] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: at)
                default: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
                }
            }
            if let level = try? AcousticLevel(objBytes: bytes) { _ = try? AcousticScene(level: level) }
        }
    }
}
