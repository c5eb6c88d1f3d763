import Backbeat
import BackbeatTesting
import Testing

@testable import BackbeatAcoustics

#if canImport(Glibc)
import Glibc
#endif

/// Another room's reverb, heard through the door: rendered, its tail measured per channel.
@Suite struct RenderedRoomReverbTests {
    /// The energy of the left and right channels' tail after a short burst
    /// from a voice in room b, heard from room a (``AcousticSceneTests/twoRooms()``)
    /// facing +X with the door on the right, the door `open` or closed.
    static func tail(doorOpen: Bool) throws -> (left: Double, right: Double) {
        try withOfflineEngine { engine in
            let scene = try AcousticSceneTests.twoRooms()
            try scene.setOpenness(doorOpen ? 1 : 0, ofPortal: "door")
            engine.listenerPosition = Audio3DPoint(x: -0.5, y: 1, z: 2.5)
            engine.listenerAngularOrientation = Audio3DAngularOrientation(yaw: 90, pitch: 0, roll: 0)
            let sound = try NoiseBurst.sound(on: engine)
            let voice = sound.play()
            voice.position = Audio3DPoint(x: 1.5, y: 1, z: 0.5)
            voice.reverbBlend = 1
            let simulation = AcousticSimulation(engine: engine, scene: scene)
            simulation.update()
            // The burst (0.1 s), then 50 ms for the direct sound to end.
            _ = try engine.render(frames: 7_200)
            let rendered = try engine.render(frames: 24_000)
            func energy(_ channel: Int) -> Double {
                SampleAnalysis.channel(rendered, channel, of: 2).reduce(0) { $0 + Double($1) * Double($1) }
            }
            return (energy(0), energy(1))
        }
    }

    @Test func aVoiceInTheNextRoomIsHeardWithItsRoomsReverbFromTheDoor() throws {
        let open = try Self.tail(doorOpen: true)
        let closed = try Self.tail(doorOpen: false)
        let rightOverLeft = 10 * log10(open.right / open.left)
        #expect(rightOverLeft > 3, "the tail's right over left: \(rightOverLeft) dB")
        // Closing the door takes the other room's reverb away.
        let closedOverOpen = 10 * log10((closed.left + closed.right + 1e-30) / (open.left + open.right))
        #expect(closedOverOpen < -30, "closed over open: \(closedOverOpen) dB")
    }
}
