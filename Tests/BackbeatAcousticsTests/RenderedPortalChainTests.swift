import Backbeat
import BackbeatTesting
import Testing

@testable import BackbeatAcoustics

#if canImport(Glibc)
import Glibc
#endif

/// Another room's reverb through a chain of portals, rendered: the three
/// rooms of ``TestGeometry/threeRooms(openness:)``, the listener in room a.
@Suite struct RenderedPortalChainTests {
    /// The energy of the reverb tail after a 0.1 s burst from a voice at
    /// `source`, heard from room a (the burst over and 50 ms more).
    static func tail(from source: Audio3DPoint) throws -> Double {
        try withOfflineEngine { engine in
            let scene = try AcousticScene(level: TestGeometry.threeRooms())
            engine.listenerPosition = Audio3DPoint(x: -2, y: 1, z: 3.5)
            engine.listenerAngularOrientation = Audio3DAngularOrientation(yaw: 90, pitch: 0, roll: 0)
            let sound = try NoiseBurst.sound(on: engine)
            let voice = sound.play()
            voice.position = source
            voice.reverbBlend = 1
            let simulation = AcousticSimulation(engine: engine, scene: scene)
            simulation.update()
            _ = try engine.render(frames: 7_200)
            return try engine.render(frames: 24_000).reduce(0) { $0 + Double($1) * Double($1) }
        }
    }

    /// Room c, two doors away, against room b, one door away: its reverb
    /// reaches room a through door `ab` only in the share of the sphere that
    /// door covers seen from door `bc` (2 m², 5 m apart: θ/2π = 0.050,
    /// -13.0 dB). Rooms b and c have the same shape and walls.
    @Test func aRoomTwoDoorsAwayIsQuieterByTheShareTheNearerDoorCoversFromTheFarther() throws {
        let oneDoor = try Self.tail(from: Audio3DPoint(x: 2.5, y: 1, z: 0))
        let twoDoors = try Self.tail(from: Audio3DPoint(x: 7.5, y: 1, z: 0))
        let radius = Double(2 / Float.pi).squareRoot()
        let expected = 10 * log10(2 * atan2(radius, 5) / (2 * Double.pi))
        let measured = 10 * log10(twoDoors / oneDoor)
        print("two doors over one: \(measured) dB, geometry \(expected) dB")
        #expect(oneDoor > 0)
        #expect(abs(measured - expected) <= 2, "two doors over one: \(measured) dB, geometry \(expected) dB")
    }
}
