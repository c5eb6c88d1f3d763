import Backbeat
import BackbeatAcoustics
import BackbeatEffects
import Foundation

extension AcousticsSuite {
    /// Where the `spatial` suite's listener stands in the generated level:
    /// the middle of the room in column 2, row 1 (x 20–30 m, z 10–20 m), at ear height.
    static let worldOrigin = Audio3DPoint(x: 25, y: 1.7, z: 15)

    /// What one side of ``worldXRealTime(count:scene:seconds:rounds:log:)``
    /// (acoustics on, or off) tallied over the rounds.
    struct SideTally {
        /// The engine's update steps.
        var steps = 0
        /// The rendering thread's CPU time (moving, rendering and working out
        /// the points, the same on both sides).
        var renderCPU: UInt64 = 0
        /// The timed part alone (moving and rendering): its wall time, and
        /// the rendering thread's CPU in it (the difference is time it
        /// waited: for the engine lock, or a core).
        var timed: (wall: UInt64, cpu: UInt64) = (0, 0)
        /// The rendering thread over the whole of the side's render (working
        /// out the points too): the time it waited for a core, and the time
        /// it slept (wall less CPU less that wait: the engine lock, held by
        /// the game thread).
        var waited: (core: UInt64, slept: UInt64) = (0, 0)
        /// What the voices cost OpenAL, summed over the game frames sampled
        /// (every ``censusEvery``th), and how many were.
        var census = MixCensus()
        var censusSamples = 0
        /// Dormant voices put to sleep and woken.
        var transitions = (sleeps: 0, wakes: 0)
    }

    /// What ``worldXRealTime(count:scene:seconds:rounds:log:)`` measured.
    struct WorldRun {
        /// Each round's throughput with acoustics on, × real time.
        var on: [Double] = []
        /// Each round's throughput without, × real time.
        var off: [Double] = []
        /// Updates the game thread made, game frames rendered, and paths worked out, over the rounds.
        var updates = 0
        var gameFrames = 0
        var paths = 0
        /// The updates' thread CPU time, over the rounds.
        var updateNanoseconds: UInt64 = 0
        /// The seconds of audio each side rendered in all.
        var seconds = 0.0
        /// Each side's tallies: acoustics on, and off.
        var withAcoustics = SideTally()
        var without = SideTally()
    }

    /// Every how many game frames ``worldXRealTime(count:scene:seconds:rounds:log:)``
    /// counts the voices (``AudioEngine/mixCensus()``): a lock and a walk of
    /// the awake voices, kept out of most frames.
    static let censusEvery = 5

    /// Throughput, × real time, of the `spatial` suite's `count`-emitter
    /// scene placed in `scene` (its listener at ``worldOrigin``), with
    /// ``AcousticSimulation/update()`` called on a game thread of its own
    /// once for each 20 ms game frame moved and rendered
    /// (``AcousticsGameThread``: the engine never waits for it, as the issue
    /// asks), and of the same scene without acoustics, side by side in
    /// `rounds` interleaved rounds, each side on a fresh engine. The
    /// throughput times moving and rendering, as the `spatial` suite's does.
    ///
    /// - Parameters:
    ///   - count: Emitters.
    ///   - scene: The level.
    ///   - seconds: Audio rendered per round and side.
    ///   - rounds: Interleaved rounds.
    ///   - log: Where each round's line goes.
    static func worldXRealTime(
        count: Int, scene: AcousticScene, seconds: Double, rounds: Int, log: (String) -> Void
    ) throws -> WorldRun {
        let spatial = SpatialScene(count: count)
        let gameFrames = max(1, Int((seconds * 50).rounded(.up)))
        let frames = gameFrames * spatial.gameFrame
        var samples = [Float](repeating: 0, count: frames * 2)
        var run = WorldRun()
        func side(acoustics: Bool) throws -> Double {
            let side = try spatial.startBackbeat()
            defer { side.close() }
            side.origin = worldOrigin
            var simulation: AcousticSimulation?
            var game: AcousticsGameThread?
            var census = MixCensus()
            var censusSamples = 0
            var frameIndex = 0
            let engine = side.engine
            func count() {
                frameIndex += 1
                guard frameIndex % Self.censusEvery == 0 else { return }
                census = census.adding(engine.mixCensus())
                censusSamples += 1
            }
            // Counting is the bench's own work: outside the timed part.
            side.afterFrame = { count() }
            if acoustics {
                let s = AcousticSimulation(engine: side.engine, scene: scene)
                let thread = AcousticsGameThread(simulation: s)
                side.eachFrame = { thread.frameRendered() }
                (simulation, game) = (s, thread)
            }
            let (cpuStart, delayStart, wallStart) = (
                threadCPUNanoseconds(), threadRunDelayNanoseconds(), monotonicNanoseconds()
            )
            let spent = try side.render(frames: frames, into: &samples)
            let cpu = threadCPUNanoseconds() - cpuStart
            let delay = threadRunDelayNanoseconds() &- delayStart
            let slept = (monotonicNanoseconds() - wallStart) &- cpu &- delay
            let waited = (core: delay, slept: Int64(bitPattern: slept) > 0 ? slept : 0)
            let steps = side.engine.withLock(waking: false) { side.engine.renderCounts.steps }
            let transitions = side.engine.dormantTransitions
            let totals: WritableKeyPath<WorldRun, SideTally> = acoustics ? \.withAcoustics : \.without
            run[keyPath: totals].steps += steps
            run[keyPath: totals].renderCPU += cpu
            run[keyPath: totals].timed.wall += spent
            run[keyPath: totals].timed.cpu += side.cpuSpent
            run[keyPath: totals].waited.core += waited.core
            run[keyPath: totals].waited.slept += waited.slept
            run[keyPath: totals].census = run[keyPath: totals].census.adding(census)
            run[keyPath: totals].censusSamples += censusSamples
            run[keyPath: totals].transitions.sleeps += transitions.sleeps
            run[keyPath: totals].transitions.wakes += transitions.wakes
            if acoustics { run.seconds += Double(frames) / Double(spatial.sampleRate) }
            if let game, let simulation {
                let tally = game.stop()
                run.updates += tally.updates
                run.updateNanoseconds += tally.cpuNanoseconds
                run.gameFrames += gameFrames
                run.paths += simulation.pathsWorkedOut
            }
            return Double(frames) / Double(spatial.sampleRate) / (Double(spent) / 1e9)
        }
        let values = try Rounds.interleaved(
            rounds, sides: [{ try side(acoustics: true) }, { try side(acoustics: false) }]
        ) { round, v in
            log(
                "round \(round): \(count) emitters in the level, acoustics on \(String(format: "%.1f", v[0]))× real time, "
                    + "off \(String(format: "%.1f", v[1]))×")
        }
        (run.on, run.off) = (values[0], values[1])
        return run
    }
}
