import BackbeatAcoustics
import Testing

@testable import BackbeatBench

@Suite("Acoustics benchmark suite")
struct AcousticsSuiteTests {
    @Test("A quick run reports the Embree ratio and rate and the frame cost, positive and finite")
    func quickRunFigures() throws {
        let figures = try AcousticsSuite().run(BenchOptions(quick: true, rounds: 1), log: { _ in })
        let byKey = Dictionary(figures.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        for key in ["embree_ratio", "embree_rays_per_s", "frame_us_p99"] {
            let value = try #require(byKey[key], "figure \(key)")
            #expect(value.isFinite && value > 0, "\(key) = \(value)")
        }
    }

    @Test("The generated level has about the triangles asked for, 20 rooms and a portal per doorway")
    func generatedLevel() throws {
        let level = AcousticsLevelGenerator.level(triangles: 100_000, seed: 33)
        #expect(abs(level.triangleCount - 100_000) < 12)
        #expect(level.rooms.count == 20)
        #expect(level.portals.count == 31)
        let scene = try AcousticScene(level: level)
        #expect(scene.warnings.isEmpty, "\(scene.warnings.prefix(3))")
    }
}
