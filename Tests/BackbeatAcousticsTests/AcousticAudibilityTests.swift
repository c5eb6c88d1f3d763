import Backbeat
import BackbeatTesting
import Testing

@testable import BackbeatAcoustics

#if canImport(Glibc)
import Glibc
#endif

/// Dormant and virtual voices: their audibility comes from their room and
/// the portals between (no ray); a voice heard gets the rays' result.
@Suite struct AcousticAudibilityTests {
    /// Two rooms joined by a closed wooden door (``AcousticSceneTests/twoRooms()``), the listener in room a.
    static let listener = Audio3DPoint(x: -2.5, y: 1, z: 0)

    /// Runs `body` in what every test here starts from: an offline engine
    /// whose listener is in room a of the two rooms, a sound of tones to
    /// play, and a simulation of the rooms that has not updated yet (making
    /// one sets nothing on the engine, so it can come before the voices).
    ///
    /// - Parameter body: The test, given the engine, the scene, the sound and the simulation.
    static func withTwoRooms(
        _ body: (AudioEngine, AcousticScene, SoundEffect, AcousticSimulation) throws -> Void
    ) throws {
        try withOfflineEngine { engine in
            let scene = try AcousticSceneTests.twoRooms()
            engine.listenerPosition = listener
            let sound = try SoundEffect(
                buffer: RenderedOcclusionTests.signal(sampleRate: 48_000), name: "tones", engine: engine)
            try body(engine, scene, sound, AcousticSimulation(engine: engine, scene: scene))
        }
    }

    @Test func aDormantVoiceBehindAClosedDoorIsEstimatedQuieterThanOneInTheListenersRoom() throws {
        try Self.withTwoRooms { engine, scene, sound, simulation in
            // Out of earshot (far below -60 dB at 2 m), so both sleep at once: dormant.
            let near = sound.play(at: nil, volume: 1e-5, position: Audio3DPoint(x: -4.5, y: 1, z: 0), looping: .forever)
            let behind = sound.play(
                at: nil, volume: 1e-5, position: Audio3DPoint(x: 2.5, y: 1, z: 0), looping: .forever)
            _ = try engine.render(frames: 4_800)
            #expect(engine.dormantTransitions.sleeps == 2)
            simulation.update()
            // No ray for a voice that is not heard.
            #expect(simulation.pathsWorkedOut == 0)
            let wood = AcousticMaterial.wood.transmission
            #expect(engine.acousticGain(of: near) == 1)
            // The closed door's transmission, as the broadband gain of the filter the rays would set.
            #expect(abs(engine.acousticGain(of: behind) - wood.filterGains.gain) < 1e-6)
            #expect(engine.acousticGain(of: behind) < 0.05)
            // The door opens: the estimate follows at the next update.
            try scene.setOpenness(1, ofPortal: "door")
            simulation.update()
            #expect(engine.acousticGain(of: behind) == 1)
            // Without the level, every estimate goes back to 1.
            try scene.setOpenness(0, ofPortal: "door")
            simulation.update()
            #expect(engine.acousticGain(of: behind) < 0.1)
            simulation.scene = nil
            simulation.update()
            #expect(engine.acousticGain(of: behind) == 1)
        }
    }

    @Test func aVoiceBehindAClosedDoorStaysVirtualWhereOneInTheOpenIsHeard() throws {
        try Self.withTwoRooms { engine, scene, sound, simulation in
            // 5 m away at 0.004: -62 dB by distance, out of earshot; raised to 0.008 it is -56 dB,
            // in earshot, unless the door's -23 dB (wood's loudest band) is in the way.
            let behind = sound.play(
                at: nil, volume: 0.004, position: Audio3DPoint(x: 2.5, y: 1, z: 0), looping: .forever)
            _ = try engine.render(frames: 4_800)
            simulation.update()
            behind.volume = 0.008
            _ = try engine.render(frames: 4_800)
            #expect(behind.state == .virtual, "the door hides it")
            // The same voice in the listener's room is heard.
            behind.position = Audio3DPoint(x: -2.5, y: 1, z: -5 + 0.1)
            simulation.update()
            _ = try engine.render(frames: 4_800)
            #expect(behind.state == .playing)
        }
    }

    @Test func aVoiceThatBecomesRealGetsTheRayCastResult() throws {
        try Self.withTwoRooms { engine, scene, sound, simulation in
            let position = Audio3DPoint(x: 1.5, y: 1, z: 0)
            let voice = sound.play(at: nil, volume: 1e-5, position: position, looping: .forever)
            _ = try engine.render(frames: 4_800)
            simulation.update()
            #expect(simulation.pathsWorkedOut == 0)
            voice.volume = 1
            _ = try engine.render(frames: 4_800)
            #expect(voice.state == .playing)
            simulation.update()
            #expect(simulation.pathsWorkedOut == 1)
            let rays = scene.path(
                from: [Self.listener.x, Self.listener.y, Self.listener.z], to: [position.x, position.y, position.z])
            #expect(voice.acousticFilter == rays.gains.filterGains)
            // Not the estimate: the rays cross the concrete wall, not the door.
            #expect(voice.acousticFilter.gain < AcousticMaterial.wood.transmission.low / 2)
        }
    }

    @Test func aHeardVoiceTheRaysFindBelowTheThresholdGoesVirtualAndStays() throws {
        try Self.withTwoRooms { engine, scene, sound, simulation in
            // In room b, 4 m away: the table's estimate is the closed door's
            // (wood), the rays cross the concrete wall, far quieter.
            let position = Audio3DPoint(x: 1.5, y: 1, z: 0)
            let listener: SIMD3<Float> = [Self.listener.x, Self.listener.y, Self.listener.z]
            let rays = scene.path(from: listener, to: [position.x, position.y, position.z]).gains.filterGains.gain
            let estimate = AcousticMaterial.wood.transmission.filterGains.gain
            try #require(rays < estimate / 4)
            // A volume the estimate hears and the rays do not, each by more
            // than the 2 dB the path's hysteresis asks: at 4 m the distance
            // takes a quarter, the threshold is -60 dB.
            let threshold = powf(10, engine.audibilityThreshold / 20)
            let volume = threshold / (0.25 * (estimate * rays).squareRoot())
            let voice = sound.play(at: nil, volume: volume, position: position, looping: .forever)
            _ = try engine.render(frames: 4_800)
            #expect(voice.state == .playing, "no level yet: heard")
            // The voice is heard, so the update traces it, and its audibility is the rays', not the door's.
            simulation.update()
            #expect(simulation.pathsWorkedOut == 1)
            #expect(abs(engine.acousticGain(of: voice) - rays) < 1e-6)
            _ = try engine.render(frames: 4_800)
            #expect(voice.state == .virtual, "the rays put it below the threshold: it gives its source back")
            // Virtual, it needs 2 dB more to come back.
            simulation.update()
            #expect(abs(engine.acousticGain(of: voice) - rays / AcousticSimulation.pathHysteresis) < 1e-6)
            // It does not come back while nothing moved: no flapping between the estimate and the rays.
            for _ in 0..<5 {
                simulation.update()
                _ = try engine.render(frames: 960)
                #expect(voice.state == .virtual)
            }
            // The door opens: the geometry changed, the voice is heard again.
            try scene.setOpenness(1, ofPortal: "door")
            simulation.update()
            _ = try engine.render(frames: 4_800)
            #expect(voice.state == .playing)
        }
    }
}
