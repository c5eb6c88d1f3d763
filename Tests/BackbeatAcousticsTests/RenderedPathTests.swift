import Backbeat
import BackbeatTesting
import Testing

@testable import BackbeatAcoustics

#if canImport(Glibc)
import Glibc
#endif

/// Where and how loud the simulation makes a voice, heard: rendered on the
/// offline engine, measured per band and per channel.
@Suite struct RenderedPathTests {
    /// The band energies of each channel of a render.
    struct Heard {
        var left: (low: Double, mid: Double, high: Double)
        var right: (low: Double, mid: Double, high: Double)

        /// Both channels' energy in each band.
        var low: Double { left.low + right.low }
        var mid: Double { left.mid + right.mid }
        var high: Double { left.high + right.high }
        /// How much louder the right channel is than the left, in dB, over every band.
        var rightOverLeft: Double {
            10 * log10((right.low + right.mid + right.high) / (left.low + left.mid + left.high))
        }
    }

    /// The band energies of a looping voice at `source` heard from
    /// `listener` (facing `yaw` degrees: 90 faces +X, with +Z on the right)
    /// through `scene` (nil: no level), after `change` between two updates.
    ///
    /// - Parameters:
    ///   - scene: The level; nil for none.
    ///   - listener: Where the listener stands.
    ///   - yaw: Where it faces.
    ///   - source: Where the voice is.
    ///   - radius: The voice's radius.
    ///   - change: What changes after the first update, before the second.
    static func heard(
        _ scene: AcousticScene?, listener: Audio3DPoint, yaw: Float = 0, source: Audio3DPoint, radius: Float = 0,
        change: ((AcousticScene) throws -> Void)? = nil
    ) throws -> Heard {
        try withOfflineEngine { engine in
            engine.listenerPosition = listener
            engine.listenerAngularOrientation = Audio3DAngularOrientation(yaw: yaw, pitch: 0, roll: 0)
            let sound = try SoundEffect(
                buffer: RenderedOcclusionTests.signal(sampleRate: 48_000), name: "tones", engine: engine)
            let voice = sound.play(looping: .forever)
            voice.position = source
            voice.sourceRadius = radius
            let simulation = AcousticSimulation(engine: engine, scene: scene)
            simulation.update()
            _ = try engine.render(frames: 4_800)
            if let scene, let change {
                try change(scene)
                simulation.update()
            }
            // Past the glide.
            _ = try engine.render(frames: 4_800)
            let rendered = try engine.render(frames: 24_000)
            func energies(_ channel: Int) -> (low: Double, mid: Double, high: Double) {
                let samples = SampleAnalysis.channel(rendered, channel, of: 2)
                func energy(_ frequencies: [Double]) -> Double {
                    frequencies.reduce(0) {
                        let level = Double(SampleAnalysis.level(of: samples, atFrequency: $1, sampleRate: 48_000))
                        return $0 + level * level
                    }
                }
                return (
                    energy(RenderedOcclusionTests.low), energy(AcousticSimulationTests.mid),
                    energy(RenderedOcclusionTests.high)
                )
            }
            return Heard(left: energies(0), right: energies(1))
        }
    }

    /// The two rooms of ``AcousticSceneTests/twoRooms()``: the listener in
    /// room a facing the wall (+X), the door (at 3 ≤ z ≤ 4) on its right,
    /// the voice behind the wall on its left. Opened, the door raises the
    /// voice and moves it to the right.
    @Test func openingADoorRaisesTheVoiceAndMovesItToTheDoorsSide() throws {
        let listener = Audio3DPoint(x: -0.5, y: 1, z: 2.5)
        let source = Audio3DPoint(x: 1.5, y: 1, z: 0.5)
        let closed = try Self.heard(AcousticSceneTests.twoRooms(), listener: listener, yaw: 90, source: source)
        let opened = try Self.heard(AcousticSceneTests.twoRooms(), listener: listener, yaw: 90, source: source) {
            try $0.setOpenness(1, ofPortal: "door")
        }
        for (band, (before, after)) in zip(
            ["low", "mid", "high"], [(closed.low, opened.low), (closed.mid, opened.mid), (closed.high, opened.high)])
        {
            let raised = 10 * log10(after / before)
            #expect(raised >= 15, "\(band) band raised \(raised) dB")
        }
        // Through the wall it comes straight, from the left; through the door, from the right.
        #expect(closed.rightOverLeft < -3, "closed: right over left \(closed.rightOverLeft) dB")
        #expect(opened.rightOverLeft > 3, "opened: right over left \(opened.rightOverLeft) dB")
    }
}

extension RenderedPathTests {
    /// A voice of radius 1 m behind a concrete screen's straight edge, 10 m
    /// either side: raised 2 m it is in the open, lowered 2 m blocked, and
    /// with its centre on the edge's line half of it is seen.
    @Test func aVoiceHalfBehindAnEdgeIsBetweenTheOpenAndTheBlockedLevel() throws {
        let screen = TestGeometry.wall("screen", z: 0, x: -100...100, y: -100...0, material: .concrete)
        let listener = Audio3DPoint(x: 0, y: 0, z: -10)
        func heard(_ y: Float) throws -> Heard {
            try Self.heard(
                AcousticScene(level: AcousticLevel(staticMeshes: [screen])), listener: listener,
                source: Audio3DPoint(x: 0, y: y, z: 10), radius: 1)
        }
        let open = try heard(2)
        let half = try heard(0)
        let blocked = try heard(-2)
        for (band, (o, h, b)) in zip(
            ["low", "mid", "high"],
            [
                (open.low, half.low, blocked.low), (open.mid, half.mid, blocked.mid),
                (open.high, half.high, blocked.high),
            ])
        {
            let halfDB = 10 * log10(h / o)
            let blockedDB = 10 * log10(b / o)
            // Half the disc is in sight: about -3 dB, and well above the blocked level.
            #expect(halfDB < -1 && halfDB > -6, "\(band): half \(halfDB) dB")
            #expect(halfDB > blockedDB + 3, "\(band): half \(halfDB) dB, blocked \(blockedDB) dB")
        }
    }

    /// A metal panel the game moves into the path between two updates: the
    /// update period after the next update is already quieter than the same
    /// period of a run where it stayed away, and after the glide the voice is
    /// down by the panel's transmission.
    @Test func aMovingOccluderIsHeardInTheNextUpdate() throws {
        func run(moving: Bool) throws -> (next: Double, settled: Double) {
            try withOfflineEngine { engine in
                let panel = TestGeometry.wall("panel", z: 0, x: -5...5, y: -5...5, material: .metal)
                let scene = try AcousticScene(level: AcousticLevel(movableMeshes: [panel]))
                try scene.setTransform(AcousticTransform(translation: [100, 0, 0]), ofMovableMesh: "panel")
                engine.listenerPosition = Audio3DPoint(x: 0, y: 0, z: -1)
                let sound = try SoundEffect(
                    buffer: RenderedOcclusionTests.signal(sampleRate: 48_000), name: "tones", engine: engine)
                let voice = sound.play(looping: .forever)
                voice.position = Audio3DPoint(x: 0, y: 0, z: 1)
                let simulation = AcousticSimulation(engine: engine, scene: scene)
                simulation.update()
                let period = engine.updateInterval
                _ = try engine.render(frames: 10 * period)
                if moving { try scene.setTransform(.identity, ofMovableMesh: "panel") }
                simulation.update()
                let next = SampleAnalysis.rms(try engine.render(frames: period))
                _ = try engine.render(frames: 4_800)
                let settled = SampleAnalysis.rms(try engine.render(frames: period))
                return (Double(next), Double(settled))
            }
        }
        let still = try run(moving: false)
        let moved = try run(moving: true)
        let nextDB = 20 * log10(moved.next / still.next)
        let settledDB = 20 * log10(moved.settled / still.settled)
        #expect(nextDB < -0.5, "the next update period: \(nextDB) dB")
        // Metal passes 0.2 of the low band and 0.025 of the mid: the tones are down by well over 10 dB.
        #expect(settledDB < -10, "after the glide: \(settledDB) dB")
    }
}

extension RenderedPathTests {
    /// A thin screen with one straight edge, listener and voice 10 m either
    /// side, 1 m below the edge (as in ``AcousticSceneTests``), rendered:
    /// each band's loss against the voice with no level is Maekawa's at the
    /// band's centre, within ±4 dB.
    @Test func aThinScreenMatchesMaekawaInEachBandRendered() throws {
        let screen = TestGeometry.wall("screen", z: 0, x: -100...100, y: -100...0, material: TestGeometry.opaque)
        let scene = try AcousticScene(level: AcousticLevel(staticMeshes: [screen]))
        let listener = Audio3DPoint(x: 0, y: -1, z: -10)
        let source = Audio3DPoint(x: 0, y: -1, z: 10)
        let open = try Self.heard(nil, listener: listener, source: source)
        let screened = try Self.heard(scene, listener: listener, source: source)
        let detour = 2 * Double(101).squareRoot() - 20
        let frequencies = AcousticBands.centreFrequencies.values
        for (band, ((before, after), frequency)) in zip(
            ["low", "mid", "high"],
            zip([(open.low, screened.low), (open.mid, screened.mid), (open.high, screened.high)], frequencies))
        {
            let rendered = -10 * log10(after / before)
            let maekawa = Double(Diffraction.maekawaLoss(fresnelNumber: Float(2 * detour * Double(frequency) / 343)))
            #expect(abs(rendered - maekawa) <= 4, "\(band): rendered \(rendered) dB, Maekawa \(maekawa) dB")
        }
    }
}
