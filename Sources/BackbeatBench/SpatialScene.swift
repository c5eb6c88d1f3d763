import Backbeat
import BackbeatEffects
import BackbeatEngine
import BackbeatMedia
import Foundation

/// The world the `spatial` suite renders: emitters looping generated sounds
/// that come and go around a listener at the origin, placed with the default
/// inverse-distance model, so that about `audibleTarget` of them are audible
/// (above -60 dBFS) at any time.
///
/// Each emitter circles the listener (its bearing turns a few degrees a
/// second) while its distance swings between 1 m and 50 km: the logarithm of
/// the distance is a steep sine clipped at both ends, so an emitter spends
/// most of its time either close or far out of earshot, and crosses between
/// them in a fraction of a second, as a game's sounds come into and go out
/// of range. Positions are a pure function of time, so both sides of the
/// comparison move every emitter to the same point on the same frame. The
/// throughput figures time moving and rendering, not working out the points
/// (the game's own work, the same on both sides).
package struct SpatialScene: Sendable {
    /// One emitter's sound, level and path.
    package struct Emitter: Sendable {
        /// Index into ``SpatialScene/sounds``.
        package let sound: Int
        /// Linear gain, 0...1.
        package let gain: Float
        /// Bearing at time zero, in radians (0: ahead, -Z), and its turn rate in radians per second.
        let bearing: Double
        let turn: Double
        /// The distance's swing: its phase in radians and its period in seconds.
        let phase: Double
        let period: Double
    }

    /// The sounds, decoded (mono, one at 44.1 kHz so OpenAL resamples it).
    package let sounds: [PCMBuffer]
    /// The emitters, in the order both sides start them.
    package let emitters: [Emitter]
    /// Output rate of both sides.
    package let sampleRate: Int
    /// Frames between two game frames (the scene moves every emitter once per game frame): 20 ms.
    package var gameFrame: Int { sampleRate / 50 }
    /// The centre of log10(distance) and the swing around it.
    let centre: Double
    static let swing = 40.0
    static let nearest = 0.0, farthest = log10(50_000.0)

    /// A scene of `count` emitters with about `audibleTarget` audible at once.
    package init(count: Int, audibleTarget: Int = 50, seed: UInt64 = 0x5A7, sampleRate: Int = 48_000) {
        self.sampleRate = sampleRate
        sounds = SpatialScene.makeSounds()
        var random = SeededRandom(seed: seed)
        let emitters = (0..<count).map { i in
            Emitter(
                sound: i % 3,
                gain: Float(0.1 + 0.2 * random.nextUnit()),
                bearing: 2 * Double.pi * random.nextUnit(),
                turn: (random.nextUnit() - 0.5) * 0.4,
                phase: 2 * Double.pi * random.nextUnit(),
                period: 8 + 16 * random.nextUnit())
        }
        self.emitters = emitters
        let fraction = min(0.9, max(0.0001, Double(audibleTarget) / Double(max(1, count))))
        centre = SpatialScene.centre(for: fraction, of: emitters)
    }

    /// The centre of log10(distance) at which, on average over time, the
    /// given fraction of `emitters` is audible. An emitter at gain g is
    /// audible within 1,000 g metres (-60 dB by 1/d), log10 = 3 + log10(g);
    /// it is within that for the fraction of its swing where
    /// `centre + swing * sin < 3 + log10(g)`, that is 1/2 + asin(s)/pi with
    /// `s = (3 + log10(g) - centre) / swing`. The mean of that over the
    /// emitters falls as the centre moves out: halving finds the centre.
    /// (Near the bottom of the swing the gains weigh a great deal: one
    /// centre for a typical gain would leave 187 of 10,000 emitters audible, not 50.)
    static func centre(for fraction: Double, of emitters: [Emitter]) -> Double {
        guard !emitters.isEmpty else { return 2.2 }
        func audible(_ centre: Double) -> Double {
            var sum = 0.0
            for e in emitters {
                let reach = 3 + log10(Double(e.gain))
                if reach >= farthest {
                    sum += 1
                    continue
                }
                let s = min(1, max(-1, (reach - centre) / swing))
                sum += 0.5 + asin(s) / Double.pi
            }
            return sum / Double(emitters.count)
        }
        var near = -swing
        var far = 100.0  // audible(near) >= fraction >= audible(far)
        for _ in 0..<60 {
            let mid = (near + far) / 2
            if audible(mid) >= fraction { near = mid } else { far = mid }
        }
        return (near + far) / 2
    }

    private static func makeSounds() -> [PCMBuffer] {
        func mono(rate: Int, seconds: Double, _ sample: (Double) -> Double) -> PCMBuffer {
            let frames = Int(seconds * Double(rate))
            let floats = (0..<frames).map { Float(sample(Double($0) / Double(rate))) }
            return try! PCMBuffer(format: AudioFormat(sampleRate: rate, channelCount: 1), floats: floats)
        }
        let engine = mono(rate: 48_000, seconds: 1) { t in
            0.4 * sin(2 * .pi * 110 * t) + 0.2 * sin(2 * .pi * 330 * t) + 0.1 * sin(2 * .pi * 990 * t)
        }
        let chirp = mono(rate: 48_000, seconds: 1.25) { t in 0.5 * sin(2 * .pi * (300 * t + 400 * t * t)) }
        let resampled = mono(rate: 44_100, seconds: 0.5) { t in 0.5 * sin(2 * .pi * 440 * t) }
        return [engine, chirp, resampled]
    }

    /// Where emitter `e` is at `seconds`.
    package func position(of e: Emitter, at seconds: Double) -> Audio3DPoint {
        let swing = centre + SpatialScene.swing * sin(2 * Double.pi * seconds / e.period + e.phase)
        let distance = pow(10, min(max(swing, SpatialScene.nearest), SpatialScene.farthest))
        let bearing = e.bearing + e.turn * seconds
        return Audio3DPoint(x: Float(distance * sin(bearing)), y: 0, z: Float(-distance * cos(bearing)))
    }

    /// Every emitter's position at `seconds`, into `points` (reused).
    package func positions(at seconds: Double, into points: inout [Audio3DPoint]) {
        if points.count != emitters.count { points = Array(repeating: .zero, count: emitters.count) }
        for i in emitters.indices { points[i] = position(of: emitters[i], at: seconds) }
    }

    /// Emitters heard above `threshold` (a gain) at `seconds`, by the inverse-distance model.
    package func audibleCount(at seconds: Double, threshold: Float = 0.001) -> Int {
        emitters.filter { e in
            let p = position(of: e, at: seconds)
            let d = max(1, (p.x * p.x + p.y * p.y + p.z * p.z).squareRoot())
            return e.gain / d >= threshold
        }.count
    }

    // MARK: The two sides

    /// The Backbeat side: an offline engine with every emitter a placed, looping voice.
    package final class BackbeatSide {
        /// The engine rendering the scene.
        package let engine: AudioEngine
        let effects: [SoundEffect]
        /// The emitters' voices, in scene order.
        package let voices: [Voice]
        let scene: SpatialScene
        private var points: [Audio3DPoint] = []
        private var frame = 0
        /// Where the scene's origin (the listener) is placed in the world:
        /// every emitter is moved by it (the `acoustics` suite puts the scene in a level).
        package var origin = Audio3DPoint.zero {
            didSet { engine.listenerPosition = origin }
        }
        /// Work a game does each game frame between moving the emitters and
        /// rendering (the `acoustics` suite's `AcousticSimulation.update()`), timed with them.
        package var eachFrame: (() -> Void)?
        /// Work the bench itself does after each game frame, outside the
        /// time ``render(frames:into:)`` returns (the `acoustics` suite's
        /// count of the voices): what a game would not do.
        package var afterFrame: (() -> Void)?
        /// The rendering thread's CPU time within what ``render(frames:into:)``
        /// returns as spent (moving and rendering), so far: the rest of that
        /// wall time the thread waited (for the engine lock, or for a core).
        package private(set) var cpuSpent: UInt64 = 0

        init(_ scene: SpatialScene, hrtf: Bool) throws {
            self.scene = scene
            let engine = try AudioEngine(output: .offline(sampleRate: scene.sampleRate, channels: 2))
            self.engine = engine
            do {
                if hrtf {
                    engine.isHRTFEnabled = true
                    guard engine.isHRTFEnabled else { throw BenchError("OpenAL Soft would not turn HRTF on") }
                }
                let effects = try scene.sounds.enumerated().map { i, pcm in
                    try SoundEffect(buffer: pcm, name: "spatial\(i)", engine: engine)
                }
                self.effects = effects
                var points: [Audio3DPoint] = []
                scene.positions(at: 0, into: &points)
                voices = try engine.performBatchUpdates {
                    scene.emitters.enumerated().map { i, e in
                        effects[e.sound].play(at: nil, volume: e.gain, position: points[i], looping: .forever)
                    }
                }
            } catch {
                engine.shutdown()
                throw error
            }
        }

        /// Works out where every emitter is at the current frame (the game's
        /// own work, outside what ``move()`` measures).
        package func prepare() {
            scene.positions(at: Double(frame) / Double(scene.sampleRate), into: &points)
            guard origin != .zero else { return }
            for i in points.indices {
                points[i] = Audio3DPoint(
                    x: points[i].x + origin.x, y: points[i].y + origin.y, z: points[i].z + origin.z)
            }
        }

        /// Moves every emitter to the points ``prepare()`` worked out, all at
        /// once, as a game would each frame (``AudioEngine/moveVoices(_:to:)``).
        package func move() throws {
            try engine.moveVoices(voices, to: points)
        }

        /// Renders `frames` frames (a whole number of game frames) into
        /// `samples` (reused), moving the emitters at each game frame.
        /// Returns the nanoseconds spent moving and rendering (not working out the points).
        @discardableResult
        package func render(frames: Int, into samples: inout [Float]) throws -> UInt64 {
            var block = [Float](repeating: 0, count: scene.gameFrame * 2)
            var done = 0
            var spent: UInt64 = 0
            while done < frames {
                prepare()
                let start = monotonicNanoseconds()
                let cpuStart = threadCPUNanoseconds()
                try move()
                eachFrame?()
                try engine.render(frames: scene.gameFrame, reusing: &block)
                cpuSpent += threadCPUNanoseconds() - cpuStart
                spent += monotonicNanoseconds() - start
                afterFrame?()
                samples.withUnsafeMutableBufferPointer { out in
                    for i in 0..<block.count where done * 2 + i < out.count { out[done * 2 + i] = block[i] }
                }
                done += scene.gameFrame
                frame += scene.gameFrame
            }
            return spent
        }

        /// Shuts the engine down.
        package func close() { engine.shutdown() }
    }

    /// The raw-OpenAL side: a loopback device playing every emitter on a
    /// source of its own, moved by hand every game frame.
    package final class RawSide {
        let baseline: OpenALBaseline
        let scene: SpatialScene
        let chunk: Int
        private var points: [Audio3DPoint] = []
        private var raw: [(Float, Float, Float)] = []
        private var frame = 0

        init(_ scene: SpatialScene, hrtf: Bool, chunk: Int) throws {
            self.scene = scene
            self.chunk = chunk
            baseline = try OpenALBaseline(sampleRate: scene.sampleRate, channels: 2)
            do {
                if hrtf, try !baseline.setHRTF(true) { throw BenchError("OpenAL Soft would not turn HRTF on") }
                for pcm in scene.sounds { _ = try baseline.addSound(pcm) }
                scene.positions(at: 0, into: &points)
                for (i, e) in scene.emitters.enumerated() {
                    let p = points[i]
                    _ = try baseline.addPlacedVoice(sound: e.sound, gain: e.gain, position: (p.x, p.y, p.z))
                }
            } catch {
                baseline.close()
                throw error
            }
            baseline.playAll()
        }

        /// Renders `frames` frames into `samples` (reused), moving every source
        /// at each game frame. Returns the nanoseconds spent moving and rendering.
        @discardableResult
        package func render(frames: Int, into samples: inout [Float]) -> UInt64 {
            var block = [Float](repeating: 0, count: scene.gameFrame * 2)
            var done = 0
            var spent: UInt64 = 0
            while done < frames {
                scene.positions(at: Double(frame) / Double(scene.sampleRate), into: &points)
                if raw.count != points.count { raw = Array(repeating: (0, 0, 0), count: points.count) }
                for i in points.indices { raw[i] = (points[i].x, points[i].y, points[i].z) }
                let start = monotonicNanoseconds()
                raw.withUnsafeBufferPointer { baseline.move(to: $0) }
                baseline.render(frames: scene.gameFrame, into: &block, chunk: chunk)
                spent += monotonicNanoseconds() - start
                samples.withUnsafeMutableBufferPointer { out in
                    for i in 0..<block.count where done * 2 + i < out.count { out[done * 2 + i] = block[i] }
                }
                done += scene.gameFrame
                frame += scene.gameFrame
            }
            return spent
        }

        /// Closes the device.
        package func close() { baseline.close() }
    }

    /// Starts the scene through Backbeat.
    package func startBackbeat(hrtf: Bool = false) throws -> BackbeatSide { try BackbeatSide(self, hrtf: hrtf) }

    /// Starts the scene through raw OpenAL, rendering in calls of `chunk` frames.
    package func startRaw(hrtf: Bool = false, chunk: Int) throws -> RawSide {
        try RawSide(self, hrtf: hrtf, chunk: chunk)
    }
}
