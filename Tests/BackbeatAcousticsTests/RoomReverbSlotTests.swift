import Backbeat
import BackbeatTesting
import Testing

@testable import BackbeatAcoustics
@testable import BackbeatEngine
@testable import BackbeatOpenAL

/// The rooms' reverb slots go back when the level goes: loaded and removed
/// twenty times, a three-room level leaves no slot behind, and the
/// listener's reverb still sounds after.
@Suite struct RoomReverbSlotTests {
    /// The effect slots the device has made and not deleted.
    static func liveSlots(_ engine: AudioEngine) -> Int { engine.withLock { engine.device.liveEffectSlots.count } }

    @Test func aLevelLoadedAndRemovedTwentyTimesGivesItsSlotsBack() throws {
        try withOfflineEngine { engine in
            engine.listenerPosition = Audio3DPoint(x: -2, y: 1, z: 0)
            engine.reverbParameters = try AudioEnvironmentReverbParameters(preset: "generic")
            let sound = try SoundEffect(buffer: RenderedGlideTests.sine(), name: "sine", engine: engine)
            let voices = [Audio3DPoint(x: 2.5, y: 1, z: 0), Audio3DPoint(x: 7.5, y: 1, z: 0)].map { point in
                let voice = sound.play(looping: .forever)
                voice.position = point
                voice.reverbBlend = 1
                return voice
            }
            let period = engine.updateInterval
            _ = try engine.render(frames: period)
            let baseline = Self.liveSlots(engine)
            for round in 0..<20 {
                var simulation: AcousticSimulation? = AcousticSimulation(
                    engine: engine, scene: try AcousticScene(level: TestGeometry.threeRooms()))
                simulation?.update()
                _ = try engine.render(frames: 4 * period)
                // Rooms b and c: a slot each, while heard.
                #expect(engine.roomReverbSlots.live == 2, "round \(round): \(engine.roomReverbSlots)")
                #expect(Self.liveSlots(engine) == baseline + 2, "round \(round)")
                if round % 2 == 0 {
                    // `geometry off`: the level goes, the simulation updates once more.
                    simulation?.scene = nil
                    simulation?.update()
                } else {
                    // The simulation is dropped with its level.
                    simulation = nil
                }
                _ = try engine.render(frames: 20 * period)
                #expect(engine.roomReverbSlots.live == 0, "round \(round): \(engine.roomReverbSlots)")
                #expect(Self.liveSlots(engine) == baseline, "round \(round)")
            }
            let slots = engine.roomReverbSlots
            #expect(slots.made == 40 && slots.freed == 40, "\(slots)")
            // The listener's reverb still sounds: a voice beside it, its tail after it stops.
            for voice in voices { voice.stop() }
            let near = sound.play()
            near.position = Audio3DPoint(x: -1, y: 1, z: 0)
            near.reverbBlend = 1
            _ = try engine.render(frames: 48_000)
            let tail = try engine.render(frames: 4_800)
            #expect(SampleAnalysis.rms(tail) > 1e-4, "the tail: \(SampleAnalysis.rms(tail))")
        }
    }
}
