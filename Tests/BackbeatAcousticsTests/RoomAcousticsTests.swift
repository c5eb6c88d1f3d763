import Backbeat
import Testing

@testable import BackbeatAcoustics

#if canImport(Glibc)
import Glibc
#endif

@Suite struct RoomAcousticsTests {
    /// Eyring by hand: RT60 = 0.161·V / (−S·ln(1 − ᾱ)).
    static func eyring(_ v: Float, _ s: Float, _ a: Float) -> Float { 0.161 * v / (-s * log(1 - a)) }

    @Test(arguments: [
        (SIMD3<Float>(10, 3, 5), AcousticMaterial.concrete), (SIMD3<Float>(4, 2.5, 3), .carpet),
        (SIMD3<Float>(30, 12, 20), .wood),
    ])
    func aShoeboxDecaysAsEyringSays(_ size: SIMD3<Float>, _ material: AcousticMaterial) throws {
        let room = AcousticRoom(name: "box", mesh: TestGeometry.box("box", from: .zero, to: size, material: material))
        let volume = size.x * size.y * size.z
        let surface = 2 * (size.x * size.y + size.y * size.z + size.x * size.z)
        let acoustics = RoomAcoustics(room: room, openPortalArea: 0)
        #expect(abs(acoustics.volume - volume) < volume * 1e-5)
        #expect(abs(acoustics.surfaceArea - surface) < surface * 1e-5)
        for (alpha, rt) in zip(material.absorption.values, acoustics.decayTimes.values) {
            let expected = Self.eyring(volume, surface, alpha)
            #expect(abs(rt - expected) < expected * 1e-4, "\(rt) s, Eyring \(expected) s")
        }
        #expect(abs(acoustics.meanFreePath - 4 * volume / surface) < 1e-4)

        let reverb = acoustics.reverbParameters
        #expect(reverb.enable)
        #expect(abs(Float(reverb.decayTime.seconds) - min(max(acoustics.decayTimes.mid, 0.1), 20)) < 1e-3)
        let hf = min(max(acoustics.decayTimes.high / acoustics.decayTimes.mid, 0.1), 2)
        #expect(abs(reverb.decayHFRatio - hf) < 1e-4)
        let delay = 4 * volume / surface / 343
        #expect(abs(Float(reverb.reflectionsDelay.seconds) - min(delay, 0.3)) < 1e-4)
    }

    @Test func anOpenPortalAbsorbsEverythingItCovers() throws {
        let size: SIMD3<Float> = [10, 3, 5]
        let room = AcousticRoom(name: "box", mesh: TestGeometry.box("box", from: .zero, to: size, material: .concrete))
        let surface: Float = 2 * (30 + 15 + 50)
        // 2 m² of the 190 m² open: their 0.07 becomes 1.
        let open = RoomAcoustics(room: room, openPortalArea: 2)
        let expected = (0.07 * (surface - 2) + 2) / surface
        #expect(abs(open.meanAbsorption.mid - expected) < 1e-5)
        #expect(open.decayTimes.mid < RoomAcoustics(room: room, openPortalArea: 0).decayTimes.mid)
    }

    @Test func theSceneCountsItsDoorsInTheRoomsReverb() throws {
        let scene = try AcousticSceneTests.twoRooms()
        let closed = try #require(scene.acoustics(ofRoom: "a"))
        try scene.setOpenness(1, ofPortal: "door")
        let open = try #require(scene.acoustics(ofRoom: "a"))
        #expect(open.decayTimes.mid < closed.decayTimes.mid)
        #expect(scene.acoustics(ofRoom: "nowhere") == nil)
    }

    @Test func aReverbTheGameSetsWins() throws {
        var level = AcousticLevel(rooms: [
            AcousticRoom(name: "hall", mesh: TestGeometry.box("hall", from: .zero, to: [20, 10, 30]))
        ])
        let worked = try #require(try AcousticScene(level: level).reverbParameters(ofRoom: "hall"))
        #expect(worked.presetName == nil)
        level.rooms[0].reverb = try AudioEnvironmentReverbParameters(preset: "cave")
        let set = try #require(try AcousticScene(level: level).reverbParameters(ofRoom: "hall"))
        #expect(set.presetName == "cave")
    }
}
