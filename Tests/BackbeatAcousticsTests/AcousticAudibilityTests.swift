import Backbeat
import BackbeatTesting
import Testing

@testable import BackbeatAcoustics

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
}
