import Backbeat
import BackbeatTesting
import Testing

@testable import BackbeatAcoustics

#if canImport(Glibc)
import Glibc
#endif

/// The simulation heard: a positioned voice on the offline engine, the
/// level applied by ``AcousticSimulation/update()`` alone, nothing set by hand.
@Suite struct AcousticSimulationTests {
    static let low = RenderedOcclusionTests.low
    static let high = RenderedOcclusionTests.high
    static let mid: [Double] = [1_000, 3_000]

    /// Band energies of a looping voice at `source` heard from `listener`
    /// through `scene` (nil: no level), after `change` (between two updates).
    static func heard(
        _ scene: AcousticScene?, listener: Audio3DPoint, source: Audio3DPoint,
        change: ((AcousticScene) throws -> Void)? = nil
    ) throws -> (low: Double, mid: Double, high: Double, updated: Int) {
        try withOfflineEngine { engine in
            engine.listenerPosition = listener
            let sound = try SoundEffect(
                buffer: RenderedOcclusionTests.signal(sampleRate: 48_000), name: "tones", engine: engine)
            let voice = sound.play(looping: .forever)
            voice.position = source
            let simulation = AcousticSimulation(engine: engine, scene: scene)
            var updated = simulation.update()
            _ = try engine.render(frames: 4_800)
            if let scene, let change {
                try change(scene)
                updated += simulation.update()
            }
            // Past the glide.
            _ = try engine.render(frames: 4_800)
            // Both channels: a voice heard around a corner is placed toward it.
            let rendered = try engine.render(frames: 24_000)
            let channels = [SampleAnalysis.channel(rendered, 0, of: 2), SampleAnalysis.channel(rendered, 1, of: 2)]
            func energy(_ frequencies: [Double]) -> Double {
                channels.reduce(0) { sum, channel in
                    frequencies.reduce(sum) {
                        let level = Double(SampleAnalysis.level(of: channel, atFrequency: $1, sampleRate: 48_000))
                        return $0 + level * level
                    }
                }
            }
            return (energy(low), energy(mid), energy(high), updated)
        }
    }

    @Test func aVoiceBehindAConcreteWallIsHeardThroughIt() throws {
        let wall = TestGeometry.wall("wall", z: -1, x: -10...10, y: -10...10, material: .concrete)
        let scene = try AcousticScene(level: AcousticLevel(staticMeshes: [wall]))
        let listener = Audio3DPoint(x: 0, y: 0, z: 0)
        let source = Audio3DPoint(x: 0, y: 0, z: -2)
        let open = try Self.heard(nil, listener: listener, source: source)
        let walled = try Self.heard(scene, listener: listener, source: source)
        #expect(walled.updated == 1)
        let lowLoss = -10 * log10(walled.low / open.low)
        let highLoss = -10 * log10(walled.high / open.high)
        #expect(lowLoss >= 30, "low band \(lowLoss) dB")
        #expect(highLoss >= 45, "high band \(highLoss) dB")
        // Beside the wall, the same voice is heard as without it.
        let beside = try Self.heard(
            scene, listener: Audio3DPoint(x: 20, y: 0, z: 0), source: Audio3DPoint(x: 20, y: 0, z: -2))
        let besideLoss = -10 * log10(beside.low / open.low)
        #expect(abs(besideLoss) < 0.5, "beside the wall \(besideLoss) dB")
    }

    /// Two rooms and a door (see ``AcousticSceneTests/twoRooms()``): the
    /// listener by the door in room a, the voice behind the wall in room b.
    @Test func openingADoorRaisesAVoiceBehindTheWall() throws {
        let listener = Audio3DPoint(x: -1, y: 1, z: 3.5)
        let source = Audio3DPoint(x: 1.5, y: 1, z: 1)
        let closed = try Self.heard(AcousticSceneTests.twoRooms(), listener: listener, source: source)
        let opened = try Self.heard(AcousticSceneTests.twoRooms(), listener: listener, source: source) {
            try $0.setOpenness(1, ofPortal: "door")
        }
        #expect(opened.updated == 2)
        for (band, (before, after)) in zip(
            ["low", "mid", "high"], [(closed.low, opened.low), (closed.mid, opened.mid), (closed.high, opened.high)])
        {
            let raised = 10 * log10(after / before)
            #expect(raised >= 15, "\(band) band raised \(raised) dB")
        }
    }

    /// Three voices looping the test tones, 1 m apart along x at z = -2.
    ///
    /// - Parameter engine: The engine to play them on.
    /// - Returns: The voices, left to right.
    static func threeLoopingVoices(on engine: AudioEngine) throws -> [Voice] {
        let sound = try SoundEffect(
            buffer: RenderedOcclusionTests.signal(sampleRate: 48_000), name: "tones", engine: engine)
        return (0..<3).map { i in
            let voice = sound.play(looping: .forever)
            voice.position = Audio3DPoint(x: Float(i), y: 0, z: -2)
            return voice
        }
    }

    @Test func aStillSceneReusesItsPaths() throws {
        try withOfflineEngine { engine in
            let wall = TestGeometry.wall("wall", z: -1, x: -10...10, y: -10...10, material: .concrete)
            let scene = try AcousticScene(level: AcousticLevel(staticMeshes: [wall]))
            let voices = try AcousticSimulationTests.threeLoopingVoices(on: engine)
            let simulation = AcousticSimulation(engine: engine, scene: scene)
            #expect(simulation.update() == 3)
            #expect(simulation.update() == 3)
            #expect(simulation.pathsWorkedOut == 3)
            voices[0].position = Audio3DPoint(x: 0, y: 0, z: -3)
            simulation.update()
            #expect(simulation.pathsWorkedOut == 4)
            engine.listenerPosition = Audio3DPoint(x: 0, y: 0.5, z: 0)
            simulation.update()
            #expect(simulation.pathsWorkedOut == 7)
        }
    }

    @Test func theListenersRoomGivesTheReverb() throws {
        try withOfflineEngine { engine in
            let scene = try AcousticSceneTests.twoRooms()
            let simulation = AcousticSimulation(engine: engine, scene: scene)
            #expect(!engine.reverbParameters.enable)
            engine.listenerPosition = Audio3DPoint(x: -1, y: 1, z: 0)
            simulation.update()
            let a = try #require(scene.reverbParameters(ofRoom: "a"))
            #expect(engine.reverbParameters.enable)
            #expect(engine.reverbParameters.decayTime == a.decayTime)
            // Opening the door lets sound out: the room's decay shortens, and the reverb follows.
            try scene.setOpenness(1, ofPortal: "door")
            simulation.update()
            let opened = try #require(scene.reverbParameters(ofRoom: "a"))
            #expect(opened.decayTime < a.decayTime)
            #expect(engine.reverbParameters.decayTime == opened.decayTime)
        }
    }
}
