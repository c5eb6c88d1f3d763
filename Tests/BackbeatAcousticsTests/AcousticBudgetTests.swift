import Backbeat
import BackbeatTesting
import Testing

@testable import BackbeatAcoustics

/// The paths an update works out: voices new to the rays and voices that
/// moved share ``AcousticSimulation/maximumPathsPerUpdate``; a change of
/// geometry works every path out in the next update whatever the budget.
@Suite struct AcousticBudgetTests {
    @Test func theBudgetSharesPathsButAGeometryChangeWorksOutEveryOne() throws {
        try withOfflineEngine { engine in
            let wall = TestGeometry.wall("wall", z: -1, x: -10...10, y: -10...10, material: .concrete)
            let panel = TestGeometry.wall("panel", z: -3, x: -5...5, y: -5...5, material: .metal)
            let scene = try AcousticScene(level: AcousticLevel(staticMeshes: [wall], movableMeshes: [panel]))
            try scene.setTransform(AcousticTransform(translation: [100, 0, 0]), ofMovableMesh: "panel")
            let voices = try AcousticSimulationTests.threeLoopingVoices(on: engine)
            let simulation = AcousticSimulation(engine: engine, scene: scene)
            simulation.maximumPathsPerUpdate = 1
            // New voices share the budget: one a frame, in order.
            #expect(simulation.update() == 1)
            #expect(simulation.update() == 2)
            #expect(simulation.update() == 3)
            #expect(simulation.pathsWorkedOut == 3)
            // All three move: one path a frame, the stalest first; the others keep theirs.
            for (i, voice) in voices.enumerated() { voice.position = Audio3DPoint(x: Float(i), y: 0, z: -4) }
            #expect(simulation.update() == 3)
            #expect(simulation.pathsWorkedOut == 4)
            #expect(simulation.update() == 3)
            #expect(simulation.pathsWorkedOut == 5)
            // The panel moves into the level: every path at once, whatever the budget.
            try scene.setTransform(.identity, ofMovableMesh: "panel")
            simulation.update()
            #expect(simulation.pathsWorkedOut == 8)
            simulation.update()
            #expect(simulation.pathsWorkedOut == 8)
        }
    }

    @Test func theStalestMovedVoiceGoesFirst() {
        func cached(update: Int, mid: Float) -> AcousticSimulation.Cached {
            let bands = AcousticBands(mid)
            return AcousticSimulation.Cached(
                listener: .zero, position: .zero, radius: 0, generation: 0,
                path: AcousticPath(
                    gains: bands, direction: [0, 0, -1], transmission: bands, visibleFraction: 1, diffraction: nil),
                filter: .open, update: update)
        }
        let kept: [AcousticSimulation.Cached?] = [
            cached(update: 5, mid: 1), nil, cached(update: 3, mid: 0.1), cached(update: 3, mid: 0.5),
        ]
        // No path first, then the stalest, the louder of two as stale first; back in index order.
        #expect(AcousticSimulation.budgeted(changed: [], waiting: [0, 1, 2, 3], kept: kept, budget: 2) == [1, 3])
        #expect(AcousticSimulation.budgeted(changed: [], waiting: [0, 1, 2, 3], kept: kept, budget: 3) == [1, 2, 3])
        #expect(AcousticSimulation.budgeted(changed: [0], waiting: [2, 3], kept: kept, budget: 1) == [0, 3])
    }
}
