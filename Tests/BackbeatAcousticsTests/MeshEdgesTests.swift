import Testing

@testable import BackbeatAcoustics

@Suite struct MeshEdgesTests {
    @Test func aBoxHasTwelveEdgesAndAQuadFour() {
        let box = MeshEdges(mesh: TestGeometry.box("box", from: .zero, to: [1, 2, 3]))
        #expect(box.pieces.map(\.count) == [12])
        let quad = MeshEdges(mesh: TestGeometry.wall("wall", z: 0, x: 0...1, y: 0...1, material: .generic))
        #expect(quad.pieces.map(\.count) == [4])
        // Every edge's outward side points away from the box's centre.
        for edge in box.pieces[0] {
            #expect(dot(edge.outward, (edge.a + edge.b) / 2 - [0.5, 1, 1.5]) > 0)
        }
    }

    @Test func separateCratesInOneMeshArePiecesOfTheirOwn() {
        let a = TestGeometry.box("a", from: .zero, to: [1, 1, 1])
        let b = TestGeometry.box("b", from: [5, 0, 0], to: [6, 1, 1])
        let joined = AcousticMesh(
            name: "crates", vertices: a.vertices + b.vertices,
            triangles: a.triangles + b.triangles.map { $0 &+ UInt32(a.vertices.count) })
        let edges = MeshEdges(mesh: joined)
        #expect(edges.pieces.map(\.count) == [12, 12])
        #expect(Array(edges.pieceOfTriangle.prefix(12)) == Array(repeating: 0, count: 12))
        #expect(Array(edges.pieceOfTriangle.suffix(12)) == Array(repeating: 1, count: 12))
        #expect(edges.pieces[1].allSatisfy { $0.a.x >= 5 && $0.b.x >= 5 })
    }
}
