import Backbeat
import BackbeatAcoustics
import Foundation
import Testing

@testable import BackbeatBench

@Suite("Acoustics benchmark suite")
struct AcousticsSuiteTests {
    @Test("A quick run reports the Embree ratio and rate and the frame cost, positive and finite")
    func quickRunFigures() throws {
        // Figure by figure: the suite's xrealtime_10k is always the full world, and
        // device_underruns runs children of the backbeat executable.
        var byKey: [String: Double] = [:]
        for only in ["embree_ratio", "frame_us_p99"] {
            let figures = try AcousticsSuite().run(BenchOptions(quick: true, rounds: 1, only: only), log: { _ in })
            for figure in figures { byKey[figure.key] = figure.value }
        }
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

    @Test("The spatial scene in the level: both sides render, and only the acoustics side works out paths")
    func worldSidesRender() throws {
        let scene = try AcousticScene(level: AcousticsLevelGenerator.level(triangles: 2_000, seed: 33))
        #expect(scene.room(containing: [25, 1.7, 15]) == "room1_2", "the listener stands in a room")
        var lines: [String] = []
        let world = try AcousticsSuite.worldXRealTime(
            count: 200, scene: scene, seconds: 0.1, rounds: 1, log: { lines.append($0) })
        #expect(world.on.count == 1 && world.off.count == 1 && lines.count == 1)
        #expect(world.on[0] > 0 && world.off[0] > 0)
        // The game thread never holds the engine up: at most one update a game frame.
        #expect(world.gameFrames == 5 && world.updates <= world.gameFrames)
    }

    @Test("device_underruns: the acoustics side is a device-scene word, and its figures reach the README table")
    func deviceUnderrunsPlumbing() throws {
        #expect(DeviceScene.Side(rawValue: "acoustics") == .acoustics)
        #expect(DeviceScene.Result(line: "3 nan")?.underruns == 3)
        let json = #"""
            {
              "acoustics" : { "device_underruns" : 0, "xrealtime_10k" : 151.2, "xrealtime_10k_off" : 170.4 },
              "run" : {
                "commit" : "abc1234", "cores" : 2, "cpu" : "test", "date" : "2026-11-26T21:00:00Z",
                "openal" : "1.1 ALSOFT 1.19.1 (OpenAL Soft)", "quick" : true, "rounds" : 1
              }
            }
            """#
        let table = BenchTable(report: try BenchReport(json: Data(json.utf8), name: "test")).markdown
        #expect(table.contains("| `acoustics.device_underruns` |"), "\(table)")
        #expect(table.contains("| 151× | 170× | ≥ 150 |"), "\(table)")
    }
}
