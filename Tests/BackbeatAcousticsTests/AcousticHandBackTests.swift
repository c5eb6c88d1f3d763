import Backbeat
import BackbeatEngine
import BackbeatTesting
import Testing

@testable import BackbeatAcoustics

#if canImport(Glibc)
import Glibc
#endif

/// What ``AcousticSimulation/update()`` hands over to the engine: a result
/// that changed by less than the hand-back threshold stays as it was (no new
/// glide for the engine to step); a larger change is handed over whole.
@Suite struct AcousticHandBackTests {
    /// A concrete screen at z = -1 from x = -10 to its edge at x = 0; the
    /// listener in front, the source behind it, heard around the edge.
    static let listener = Audio3DPoint(x: 1, y: 0, z: 0)
    static let source = SIMD3<Float>(-3, 0, -3)
    static let edge = SIMD3<Float>(0, 0, -1)

    @Test func aChangeBelowTheThresholdIsNotHandedOver() throws {
        try withOfflineEngine { engine in
            let screen = TestGeometry.wall("screen", z: -1, x: -10...0, y: -10...10, material: .concrete)
            let scene = try AcousticScene(level: AcousticLevel(staticMeshes: [screen]))
            engine.listenerPosition = Self.listener
            let sound = try SoundEffect(
                buffer: RenderedOcclusionTests.signal(sampleRate: 48_000), name: "tones", engine: engine)
            let voice = sound.play(looping: .forever)
            func place(_ p: SIMD3<Float>) { voice.position = Audio3DPoint(x: p.x, y: p.y, z: p.z) }
            func filter(at p: SIMD3<Float>) -> FilterGains {
                scene.path(from: [Self.listener.x, Self.listener.y, Self.listener.z], to: p).gains.filterGains
            }
            place(Self.source)
            let simulation = AcousticSimulation(engine: engine, scene: scene)
            #expect(simulation.update() == 1)
            let first = filter(at: Self.source)
            #expect(voice.acousticFilter == first)
            // 30 cm further along the line from the edge: past the movement
            // threshold, so the path is worked out again, and the same bend,
            // so only the detour changes, by half a millimetre.
            let away = Self.source + normalized(Self.source - Self.edge) * 0.3
            let slightly = filter(at: away)
            try #require(slightly != first, "the path must change for the test to mean anything")
            try #require(AcousticSimulation.isAudiblySame(slightly, as: first))
            place(away)
            #expect(simulation.update() == 1)
            #expect(simulation.pathsWorkedOut == 2)
            #expect(voice.acousticFilter == first, "a change below the threshold is not handed over")
            // In sight of the listener: a change of many decibels, handed over.
            let seen = SIMD3<Float>(1, 0, -3)
            place(seen)
            #expect(simulation.update() == 1)
            #expect(filter(at: seen) == .open)
            #expect(voice.acousticFilter == .open)
        }
    }

    @Test func theThresholdIsAQuarterDecibelInEachGain() {
        let base = FilterGains(gain: 0.5, gainLF: 0.8, gainHF: 0.1)
        let quarter = powf(10, 0.25 / 20)
        #expect(AcousticSimulation.isAudiblySame(base, as: base))
        #expect(
            AcousticSimulation.isAudiblySame(
                FilterGains(gain: 0.5 * quarter * 0.999, gainLF: 0.8, gainHF: 0.1 / (quarter * 0.999)), as: base))
        #expect(!AcousticSimulation.isAudiblySame(FilterGains(gain: 0.5, gainLF: 0.8 / 1.03, gainHF: 0.1), as: base))
        #expect(!AcousticSimulation.isAudiblySame(FilterGains(gain: 0.5, gainLF: 0.8, gainHF: 0.1 * 1.03), as: base))
        // Below -100 dB, silence is silence.
        let silent = FilterGains(gain: 0, gainLF: 1, gainHF: 1)
        #expect(AcousticSimulation.isAudiblySame(FilterGains(gain: 1e-7, gainLF: 1, gainHF: 1), as: silent))
    }
}
