import BackbeatAcoustics
import BackbeatEffects
import Foundation

/// Acoustics from geometry (issue 33's `acoustics` suite; its first figures).
///
/// - `embree_ratio`: on a generated level of about 100,000 triangles (20
///   rooms, 31 doorways, crates), Backbeat's occlusion rays per second (the
///   scene's lock, then Embree through the door) over raw `rtcOccluded1`
///   casting the same rays one by one, side by side in interleaved rounds.
/// - `embree_rays_per_s`: the raw side's rays per second, for scale.
/// - `frame_us_p99`: the 99th percentile, over the frames of a listener
///   walking through that level, of the time `AcousticScene.paths(from:to:)`
///   takes for 256 sources (one game frame's acoustics, one thread), in µs.
/// - `frame_cpu_us_p99`: the same frames' thread CPU time: the work alone,
///   without what a busy machine's other processes take from the core.
/// - `load_1m_mib`: how much the resident memory grew to load a
///   1,000,000-triangle level (the most a level may have), in MiB.
/// - `xrealtime_10k`: the `spatial` suite's 10,000-emitter scene placed in
///   the 100,000-triangle level, ``AcousticSimulation/update()`` on a game
///   thread once a game frame, × real time; `xrealtime_10k_off` the same
///   without acoustics, `xrealtime_10k_ratio` the two round by round,
///   `xrealtime_10k_update_us` the game thread's CPU per update.
/// - `device_underruns` / `device_dropouts`: the `device` suite's scene in
///   the level with acoustics on, on its private sound server, another core
///   busy; `_off` the same rounds' scene without (``DeviceSceneRunner``).
package struct AcousticsSuite: BenchSuite {
    package let name = "acoustics"
    package let summary =
        "Acoustics from geometry: rays through Backbeat vs raw Embree, a frame's cost, 10,000 emitters in a level, the device scene"

    /// The suite.
    package init() {}

    package func run(_ options: BenchOptions, log: (String) -> Void) throws -> [Figure] {
        var figures: [Figure] = []
        let triangles = options.quick ? 5_000 : 100_000
        if options.only == nil || options.only == "embree_ratio" {
            let scene = try AcousticScene(level: AcousticsLevelGenerator.level(triangles: triangles, seed: 33))
            log("level: \(scene.triangleCount) triangles, \(scene.roomCount) rooms, \(scene.portalCount) portals")
            let segments = Self.segments(count: options.quick ? 2_000 : 200_000, seed: 34)
            var backbeatBlocked = 0
            var rawBlocked = 0
            func rate(_ body: () -> Int, into count: inout Int) -> Double {
                let start = monotonicNanoseconds()
                count = body()
                return Double(segments.count) / (Double(monotonicNanoseconds() - start) / 1e9)
            }
            let values = try Rounds.interleaved(
                options.rounds,
                sides: [
                    { rate({ scene.countBlocked(segments) }, into: &backbeatBlocked) },
                    { rate({ scene.rawCountBlocked(segments) }, into: &rawBlocked) },
                ]
            ) { round, v in
                log("round \(round): Backbeat \(Int(v[0])) rays/s, raw rtcOccluded1 \(Int(v[1])) rays/s")
            }
            precondition(backbeatBlocked == rawBlocked, "both sides must agree on every ray")
            log("\(backbeatBlocked) of \(segments.count) rays blocked on both sides")
            figures.append(
                Figure(key: "embree_ratio", rounds: Rounds.ratios(values[0], values[1]), unit: "× raw rtcOccluded1"))
            figures.append(Figure(key: "embree_rays_per_s", rounds: values[1], unit: "rays/s, raw rtcOccluded1"))
        }
        if options.only == nil || options.only == "frame_us_p99" {
            let scene = try AcousticScene(level: AcousticsLevelGenerator.level(triangles: triangles, seed: 33))
            let sources = Self.segments(count: 256, seed: 36).map { (position: $0.1, radius: Float(0)) }
            let frames = options.quick ? 5 : 200
            var times: [Double] = []
            var cpuTimes: [Double] = []
            var heard: Float = 0
            for frame in 0..<frames {
                // The listener walks the level's diagonal, 1.4 m/s at 50 frames a second.
                let t = Float(frame) / Float(frames)
                let listener: SIMD3<Float> = [
                    1 + t * (Float(AcousticsLevelGenerator.columns) * AcousticsLevelGenerator.roomSize - 2), 1.7,
                    1 + t * (Float(AcousticsLevelGenerator.rows) * AcousticsLevelGenerator.roomSize - 2),
                ]
                let start = monotonicNanoseconds()
                let cpuStart = threadCPUNanoseconds()
                for path in scene.paths(from: listener, to: sources) { heard += path.gains.mid }
                cpuTimes.append(Double(threadCPUNanoseconds() - cpuStart) / 1e3)
                times.append(Double(monotonicNanoseconds() - start) / 1e3)
            }
            log(
                "\(frames) frames of 256 paths: median \(Int(median(times))) µs, mean gain \(heard / Float(frames * 256))"
            )
            log("thread CPU per frame: median \(Int(median(cpuTimes))) µs, p99 \(Int(percentile(cpuTimes, 0.99))) µs")
            figures.append(Figure(key: "frame_us_p99", value: percentile(times, 0.99), unit: "µs per 256 paths"))
            figures.append(
                Figure(
                    key: "frame_cpu_us_p99", value: percentile(cpuTimes, 0.99), unit: "µs of thread CPU per 256 paths"))
        }
        if options.only == nil || options.only == "xrealtime_10k" {
            // Always the full world (10,000 emitters, 100,000 triangles): --quick only renders less of it.
            let scene = try AcousticScene(level: AcousticsLevelGenerator.level(triangles: 100_000, seed: 33))
            let world = try Self.worldXRealTime(
                count: 10_000, scene: scene, seconds: options.quick ? 1 : 10, rounds: options.rounds, log: log)
            let perUpdate = Double(world.updateNanoseconds) / 1e3 / Double(max(1, world.updates))
            log(
                "game thread: \(world.updates) updates for \(world.gameFrames) game frames rendered, "
                    + "\(String(format: "%.0f", perUpdate)) µs of CPU and "
                    + "\(String(format: "%.1f", Double(world.paths) / Double(max(1, world.updates)))) paths each")
            let seconds = max(world.seconds, 1e-9)
            log(
                "update steps per second of audio: acoustics on \(Int((Double(world.withAcoustics.steps) / seconds).rounded())), "
                    + "off \(Int((Double(world.without.steps) / seconds).rounded()))")
            log(
                "render thread CPU per second of audio: acoustics on "
                    + "\(String(format: "%.1f", Double(world.withAcoustics.renderCPU) / 1e6 / seconds)) ms, off "
                    + "\(String(format: "%.1f", Double(world.without.renderCPU) / 1e6 / seconds)) ms")
            func timed(_ t: (wall: UInt64, cpu: UInt64)) -> String {
                String(format: "%.1f ms (CPU %.1f ms)", Double(t.wall) / 1e6 / seconds, Double(t.cpu) / 1e6 / seconds)
            }
            log(
                "moving and rendering per second of audio: acoustics on \(timed(world.withAcoustics.timed)), off \(timed(world.without.timed))"
            )
            func waited(_ w: (core: UInt64, slept: UInt64)) -> String {
                String(
                    format: "%.1f ms for a core, %.1f ms asleep", Double(w.core) / 1e6 / seconds,
                    Double(w.slept) / 1e6 / seconds)
            }
            log(
                "render thread waits per second of audio: acoustics on \(waited(world.withAcoustics.waited)), off \(waited(world.without.waited))"
            )
            func census(_ side: SideTally) -> String {
                let (c, n) = (side.census, Double(max(1, side.censusSamples)))
                func mean(_ v: Int) -> String { String(format: "%.1f", Double(v) / n) }
                return "\(mean(c.real)) real (\(mean(c.filtered)) filtered: \(mean(c.lowShelf)) low shelf, "
                    + "\(mean(c.highShelf)) high shelf; \(mean(c.sending)) sending; "
                    + "\(mean(c.quietByPath)) below the threshold by their path), \(mean(c.virtual)) awake virtual, "
                    + "\(mean(c.effectSlots)) effect slots"
            }
            log("voices per game frame: acoustics on \(census(world.withAcoustics))")
            log("voices per game frame: acoustics off \(census(world.without))")
            func transitions(_ side: SideTally) -> String {
                let (t, perSecond) = (side.transitions, { (n: Int) in Int((Double(n) / seconds).rounded()) })
                return "\(perSecond(t.sleeps)) slept, \(perSecond(t.wakes)) woken"
            }
            log(
                "dormant voices per second of audio: acoustics on \(transitions(world.withAcoustics)); "
                    + "off \(transitions(world.without))")
            figures += [
                Figure(
                    key: "xrealtime_10k", rounds: world.on,
                    unit: "× real time, the spatial suite's 10,000 emitters in the level, acoustics on (goal ≥ 150)"),
                Figure(key: "xrealtime_10k_off", rounds: world.off, unit: "× real time, the same without acoustics"),
                Figure(
                    key: "xrealtime_10k_ratio", rounds: Rounds.ratios(world.on, world.off),
                    unit: "× the same without acoustics, round by round"),
                Figure(
                    key: "xrealtime_10k_update_us", value: perUpdate,
                    unit: "µs of the game thread's CPU per AcousticSimulation.update(), mean"),
            ]
        }
        if options.only == nil || options.only == "device_underruns" {
            let total = options.quick ? 6 : 60
            let device = try Self.deviceRun(
                seconds: max(2, total / options.rounds), rounds: options.rounds, log: log)
            figures += [
                Figure(
                    key: "device_underruns", value: Double(device.underruns),
                    unit: "music underruns, the device scene in the level with acoustics on, a core busy (goal 0)"),
                Figure(
                    key: "device_dropouts", value: Double(device.dropouts),
                    unit: "silences of 1 ms or more heard at the sink in the same rounds (goal 0)"),
                Figure(key: "device_cpu_s", rounds: device.cpu, unit: "s of CPU per round, acoustics on"),
                Figure(
                    key: "device_underruns_off", value: Double(device.underrunsOff),
                    unit: "music underruns, the device suite's scene without a level, in the same rounds"),
                Figure(
                    key: "device_dropouts_off", value: Double(device.dropoutsOff),
                    unit: "silences heard at the sink without a level, in the same rounds"),
            ]
        }
        if !options.quick, options.only == nil || options.only == "load_1m_mib" {
            let before = residentMiB()
            let level = AcousticsLevelGenerator.level(triangles: AcousticLevel.maximumTriangleCount - 2_000, seed: 35)
            let scene = try AcousticScene(level: level)
            let grown = residentMiB() - before
            log("a \(scene.triangleCount)-triangle level: resident memory grew \(Int(grown)) MiB")
            figures.append(Figure(key: "load_1m_mib", value: grown, unit: "MiB for 1,000,000 triangles"))
        }
        return figures
    }

    /// Segments between random points of the level (a listener walking, sources around), seeded.
    static func segments(count: Int, seed: UInt64) -> [(SIMD3<Float>, SIMD3<Float>)] {
        var random = SeededRandom(seed: seed)
        let width = Float(AcousticsLevelGenerator.columns) * AcousticsLevelGenerator.roomSize
        let depth = Float(AcousticsLevelGenerator.rows) * AcousticsLevelGenerator.roomSize
        func point() -> SIMD3<Float> {
            [Float(random.nextUnit()) * width, 0.2 + Float(random.nextUnit()) * 2.5, Float(random.nextUnit()) * depth]
        }
        return (0..<count).map { _ in (point(), point()) }
    }
}
