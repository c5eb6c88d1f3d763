import Backbeat
import BackbeatTesting
import Foundation
import Testing

/// Voices gliding along paths, a listener following a game object, and
/// batched updates, measured on rendered samples and engine time.
@Suite("Spatial motion: glides, a following listener, batched updates")
struct SpatialMotionTests {
    static func levels(_ out: [Float]) -> (left: Float, right: Float) {
        (
            SampleAnalysis.rms(SampleAnalysis.channel(out, 0, of: 2)),
            SampleAnalysis.rms(SampleAnalysis.channel(out, 1, of: 2))
        )
    }

    static func tone(_ engine: AudioEngine, frequency: Double = 440) throws -> SoundEffect {
        try SoundEffect(
            buffer: TestSignal.sine(frequency: frequency, duration: MediaTime(seconds: 1)), name: "tone",
            engine: engine)
    }

    static func close(_ a: Audio3DPoint?, _ b: Audio3DPoint, within tolerance: Float = 1e-4) -> Bool {
        guard let a else { return false }
        return abs(a.x - b.x) < tolerance && abs(a.y - b.y) < tolerance && abs(a.z - b.z) < tolerance
    }

    @Test("A glide moves a voice along its path at constant speed, on update-step boundaries in engine time")
    func glidePositions() throws {
        try withOfflineEngine { engine in
            let voice = try Self.tone(engine).play(looping: .forever)
            // An L-shaped path, 10 m then 10 m, over 2 s: 10 m/s.
            try voice.move(
                along: [
                    Audio3DPoint(x: -10, y: 0, z: -1), Audio3DPoint(x: 0, y: 0, z: -1),
                    Audio3DPoint(x: 0, y: 0, z: -11),
                ],
                duration: MediaTime(seconds: 2))
            #expect(Self.close(voice.position, Audio3DPoint(x: -10, y: 0, z: -1)), "placed at the first point at once")
            // After 0.5 s rendered, the last update step ran 240 frames (one step at
            // 48 kHz) earlier, at 0.495 s: 4.95 m along.
            #expect(engine.updateInterval == 240)
            _ = try engine.render(frames: 24_000)
            #expect(Self.close(voice.position, Audio3DPoint(x: -5.05, y: 0, z: -1)))
            #expect(Self.close(voice.velocity, Audio3DPoint(x: 10, y: 0, z: 0)))
            _ = try engine.render(frames: 48_000)  // the step at 1.495 s: 4.95 m down the second leg
            #expect(Self.close(voice.position, Audio3DPoint(x: 0, y: 0, z: -5.95)))
            #expect(Self.close(voice.velocity, Audio3DPoint(x: 0, y: 0, z: -10)))
            _ = try engine.render(frames: 48_000)  // past the end: there, still
            #expect(Self.close(voice.position, Audio3DPoint(x: 0, y: 0, z: -11)))
            #expect(voice.velocity == .zero)
        }
    }

    @Test("move(to:) during a path glide goes on from where the path has got to: no jump, no pause")
    func straightGlideReplacesPath() throws {
        // 16 m/s across the listener, 1 m in front: 8 cm per update step, a large change of pan.
        let a = Audio3DPoint(x: -8, y: 0, z: -1)
        let b = Audio3DPoint(x: 8, y: 0, z: -1)
        func render(at frames: Int, switching: Bool) throws -> [Float] {
            try withOfflineEngine { engine in
                let voice = try Self.tone(engine).play(looping: .forever)
                try voice.move(along: [a, b], duration: MediaTime(seconds: 1))
                var out = try engine.render(frames: frames)
                // The rest of the same way, in the rest of the time: the same speed.
                if switching {
                    try voice.move(to: b, duration: MediaTime(frames: Int64(48_000 - frames), sampleRate: 48_000))
                }
                out += try engine.render(frames: 48_000 - frames)
                return out
            }
        }
        // Switched on an update step's boundary (19,200 = 80 steps) and inside one (19,300),
        // against the path rendered in the same two calls.
        for frames in [19_200, 19_300] {
            let path = try render(at: frames, switching: false)
            let switched = try render(at: frames, switching: true)
            var worst: Float = 0
            for (x, y) in zip(path, switched) { worst = max(worst, abs(x - y)) }
            #expect(worst < 1e-3, "switched at \(frames): the same way at the same speed, \(worst) apart")
        }
        // A turn: from where the voice is, each update step moves it no more than one step of the new way.
        try withOfflineEngine { engine in
            let voice = try Self.tone(engine).play(looping: .forever)
            try voice.move(along: [a, b], duration: MediaTime(seconds: 1))
            _ = try engine.render(frames: 19_300)
            let turn = Audio3DPoint(x: 4, y: 0, z: -5)
            try voice.move(to: turn, duration: MediaTime(seconds: 0.5))
            var last = try #require(voice.position)
            // The way left: from -1.6 m at 19,300 frames (16 m/s) to the turn point in 24,000 frames.
            let here = Audio3DPoint(x: -8 + 16 * 19_300 / 48_000, y: 0, z: -1)
            let way = ((turn.x - here.x) * (turn.x - here.x) + (turn.z - here.z) * (turn.z - here.z)).squareRoot()
            let perStep = max(way / 100, 16 * 240 / 48_000)
            for _ in 0..<110 {
                _ = try engine.render(frames: 240)
                let p = try #require(voice.position)
                let moved = ((p.x - last.x) * (p.x - last.x) + (p.z - last.z) * (p.z - last.z)).squareRoot()
                #expect(moved <= perStep * 1.01, "a step of \(moved) m, one update moves \(perStep) m")
                last = p
            }
            #expect(Self.close(voice.position, turn))
        }
    }

    @Test("A glide across the listener is heard moving from left to right, and renders the same every time")
    func glideHeardAndRepeatable() throws {
        func render() throws -> [Float] {
            try withOfflineEngine { engine in
                let voice = try Self.tone(engine).play(looping: .forever)
                try voice.move(to: Audio3DPoint(x: 4, y: 0, z: -1), duration: MediaTime(seconds: 1))
                voice.position = Audio3DPoint(x: -4, y: 0, z: -1)  // by hand: ends the glide
                try voice.move(to: Audio3DPoint(x: 4, y: 0, z: -1), duration: MediaTime(seconds: 1))
                return try engine.render(frames: 48_000)
            }
        }
        let out = try render()
        let start = Self.levels(Array(out[0..<9_600]))
        let end = Self.levels(Array(out[86_400..<96_000]))
        #expect(start.left > start.right * 3, "starts on the left")
        #expect(end.right > end.left * 3, "ends on the right")
        #expect(try render() == out, "sample for sample the same")
    }

    @Test("A tone gliding towards the listener is Doppler-shifted by its path's speed, within 1%")
    func glideDoppler() throws {
        try withOfflineEngine { engine in
            let voice = try Self.tone(engine, frequency: 1_000).play(looping: .forever)
            // 40 m in 2 s, straight at the listener: 20 m/s.
            try voice.move(
                along: [Audio3DPoint(x: 0, y: 0, z: -50), Audio3DPoint(x: 0, y: 0, z: -10)],
                duration: MediaTime(seconds: 2))
            _ = try engine.render(frames: 24_000)
            let out = try engine.render(frames: 48_000)
            let heard = DopplerTests.frequency(SampleAnalysis.channel(out, 0, of: 2), sampleRate: 48_000)
            let expected = 1_000 * 343.3 / (343.3 - 20)
            #expect(abs(heard / expected - 1) < 0.01, "heard \(heard) Hz, formula \(expected) Hz")
        }
    }

    @Test("Bad paths and durations are typed errors that leave the voice where it was")
    func badGlides() throws {
        try withOfflineEngine { engine in
            let voice = try Self.tone(engine).play(looping: .forever)
            voice.position = Audio3DPoint(x: 1, y: 0, z: 0)
            let p = Audio3DPoint(x: 2, y: 0, z: 0)
            let cases: [(path: [Audio3DPoint], seconds: Double)] = [
                ([], 1), ([p, Audio3DPoint(x: .nan, y: 0, z: 0)], 1), ([p, Audio3DPoint(x: 0, y: .infinity, z: 0)], 1),
                ([p], -1),
                ([Audio3DPoint(x: -3e38, y: 0, z: 0), Audio3DPoint(x: 3e38, y: 0, z: 0)], 1),
            ]
            for bad in cases {
                let error = #expect(throws: BackbeatError.self) {
                    try voice.move(along: bad.path, duration: MediaTime(seconds: bad.seconds))
                }
                #expect(error?.code == .invalidArgument)
                #expect(voice.position == Audio3DPoint(x: 1, y: 0, z: 0))
            }
            // A zero duration jumps to the end.
            try voice.move(along: [p, Audio3DPoint(x: 3, y: 0, z: 0)], duration: .zero)
            #expect(voice.position == Audio3DPoint(x: 3, y: 0, z: 0) && voice.velocity == .zero)
        }
    }

    @Test("moveListener derives the listener's velocity from its moves over engine time, and hears the Doppler shift")
    func followingListener() throws {
        try withOfflineEngine { engine in
            let voice = try Self.tone(engine, frequency: 1_000).play(
                at: nil, position: Audio3DPoint(x: 0, y: 0, z: -60), looping: .forever)
            #expect(voice.isPlaying)
            // The game moves its hero 0.2 m towards the source every 10 ms frame: 20 m/s.
            var z: Float = 0
            engine.moveListener(to: Audio3DPoint(x: 0, y: 0, z: z))
            #expect(engine.listenerVelocity == .zero, "the first move has nothing to measure from")
            var out: [Float] = []
            for frame in 0..<150 {
                out += try engine.render(frames: 480)
                z -= 0.2
                engine.moveListener(to: Audio3DPoint(x: 0, y: 0, z: z))
                if frame == 0 {
                    #expect(Self.close(engine.listenerVelocity, Audio3DPoint(x: 0, y: 0, z: -20), within: 1e-3))
                }
            }
            let heard = DopplerTests.frequency(
                SampleAnalysis.channel(Array(out[9_600...]), 0, of: 2), sampleRate: 48_000)
            let expected = 1_000 * (343.3 + 20) / 343.3
            #expect(abs(heard / expected - 1) < 0.01, "heard \(heard) Hz, formula \(expected) Hz")
            // A respawn 500 m away is not a sonic boom.
            _ = try engine.render(frames: 480)
            engine.moveListener(to: Audio3DPoint(x: 500, y: 0, z: 0))
            #expect(engine.listenerVelocity == .zero)
            // Setting the position by hand starts over.
            engine.listenerPosition = .zero
            _ = try engine.render(frames: 480)
            engine.moveListener(to: Audio3DPoint(x: 1, y: 0, z: 0))
            #expect(engine.listenerVelocity == .zero)
        }
    }

    @Test("Ears at the camera or at the character: where the listener stands, facing where the camera looks")
    func ears() throws {
        try withOfflineEngine { engine in
            // A third-person camera 10 m behind the hero (+Z), looking at -Z; a bell 2 m to the hero's right.
            _ = try Self.tone(engine).play(at: nil, position: Audio3DPoint(x: 2, y: 0, z: 0), looping: .forever)
            let facing = Audio3DVectorOrientation(
                forward: Audio3DPoint(x: 0, y: 0, z: -1), up: Audio3DPoint(x: 0, y: 1, z: 0))
            let camera = Audio3DPoint(x: 0, y: 0, z: 10)
            let hero = Audio3DPoint.zero
            engine.moveListener(camera: camera, orientation: facing, character: hero, ears: .character)
            #expect(engine.listenerPosition == hero)
            _ = try engine.render(frames: 4_800)
            let atHero = Self.levels(try engine.render(frames: 9_600))
            engine.moveListener(camera: camera, orientation: facing, character: hero, ears: .camera)
            #expect(engine.listenerPosition == camera)
            _ = try engine.render(frames: 4_800)
            let atCamera = Self.levels(try engine.render(frames: 9_600))
            #expect(atHero.right > atHero.left * 10, "at the hero: 2 m to the right, hard right")
            #expect(atCamera.right < atHero.right * 0.3, "at the camera: 10 m away, quieter")
            #expect(atCamera.right > atCamera.left, "still on the right of the picture")
        }
    }

    @Test("Moves made in a batch land together: none is heard while the batch is open, all in the next step")
    func batchedMoves() throws {
        try withOfflineEngine { engine in
            let sound = try Self.tone(engine)
            let voices = (0..<100).map { _ in
                sound.play(at: nil, position: Audio3DPoint(x: -2, y: 0, z: 0), looping: .forever)
            }
            _ = try engine.render(frames: 4_800)
            let left = Self.levels(try engine.render(frames: 4_800))
            #expect(left.left > left.right * 10)
            var during: (left: Float, right: Float) = (0, 0)
            try engine.performBatchUpdates {
                for voice in voices { voice.position = Audio3DPoint(x: 2, y: 0, z: 0) }
                // Rendered while the batch is open: the moves wait.
                during = Self.levels(try engine.render(frames: 4_800))
            }
            let after = try engine.render(frames: 4_800)
            #expect(during.left > during.right * 10, "no move applied before the batch closed")
            // Once OpenAL Soft's own gain ramp (one 2,048-frame mix) is over, all hundred are on the right.
            let moved = Self.levels(Array(after[4_096..<9_600]))
            #expect(moved.right > moved.left * 10, "all moved, at once")
        }
    }
}
