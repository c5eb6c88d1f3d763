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
