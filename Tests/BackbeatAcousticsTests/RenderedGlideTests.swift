import Backbeat
import BackbeatTesting
import Testing

@testable import BackbeatAcoustics

#if canImport(Glibc)
import Glibc
#endif

/// Changes of direction glide: a voice heard through a door that opens, and
/// another room's reverb when the listener turns, rendered one update
/// period at a time around the change.
@Suite struct RenderedGlideTests {
    /// How much louder the right channel is than the left, in dB.
    static func rightOverLeft(_ rendered: [Float]) -> Double {
        func energy(_ channel: Int) -> Double {
            SampleAnalysis.channel(rendered, channel, of: 2).reduce(0) { $0 + Double($1) * Double($1) }
        }
        return 10 * log10((energy(1) + 1e-30) / (energy(0) + 1e-30))
    }

    /// The largest step from one sample to the next, over both channels.
    static func largestStep(_ rendered: [Float]) -> Float {
        var largest: Float = 0
        for channel in 0..<2 {
            let samples = SampleAnalysis.channel(rendered, channel, of: 2)
            for i in 1..<samples.count { largest = max(largest, abs(samples[i] - samples[i - 1])) }
        }
        return largest
    }

    /// One second of a 300 Hz sine (300 whole periods: it loops without a seam).
    static func sine() throws -> PCMBuffer {
        let samples = (0..<48_000).map { 0.5 * Float(sin(2 * Double.pi * 300 * Double($0) / 48_000)) }
        return try PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: samples)
    }

    /// The door of ``AcousticSceneTests/twoRooms()`` opens on the listener's
    /// right while the voice behind the wall is heard from its left: the
    /// balance turns over several update periods, not in one, and no period
    /// around the change steps from sample to sample more than the sine does
    /// once it is heard through the door.
    @Test func aDoorThatOpensTurnsTheVoiceOverSeveralPeriodsWithoutAClick() throws {
        try withOfflineEngine { engine in
            let scene = try AcousticSceneTests.twoRooms()
            engine.listenerPosition = Audio3DPoint(x: -0.5, y: 1, z: 2.5)
            engine.listenerAngularOrientation = Audio3DAngularOrientation(yaw: 90, pitch: 0, roll: 0)
            let sound = try SoundEffect(buffer: Self.sine(), name: "sine", engine: engine)
            let voice = sound.play(looping: .forever)
            voice.position = Audio3DPoint(x: 1.5, y: 1, z: 0.5)
            let simulation = AcousticSimulation(engine: engine, scene: scene)
            simulation.update()
            let period = engine.updateInterval
            _ = try engine.render(frames: 20 * period)
            let before = Self.rightOverLeft(try engine.render(frames: period))
            try scene.setOpenness(1, ofPortal: "door")
            simulation.update()
            var balances: [Double] = []
            var steps: [Float] = []
            for _ in 0..<16 {
                let block = try engine.render(frames: period)
                balances.append(Self.rightOverLeft(block))
                steps.append(Self.largestStep(block))
            }
            _ = try engine.render(frames: 10 * period)
            let settled = try engine.render(frames: 4 * period)
            let after = Self.rightOverLeft(settled)
            #expect(before < -3 && after > 3, "before \(before) dB, after \(after) dB")
            // Periods caught on the way, well clear of both ends: 7 of the 8 the glide takes (a jump: 2).
            let between = balances.filter { $0 > before + 3 && $0 < after - 3 }
            #expect(between.count >= 5, "balances per period: \(balances.map { Int($0.rounded()) })")
            // The balance moves one way, a step at a time.
            for (a, b) in zip(balances, balances.dropFirst()) { #expect(b >= a - 1, "\(balances)") }
            let steady = Self.largestStep(settled)
            #expect(steps.max()! <= 1.25 * steady, "largest step \(steps.max()!) against \(steady) settled")
        }
    }

    /// A voice in room b, a short burst a second, heard from room a with its
    /// room's reverb coming through the door on the listener's right; while
    /// the tail sounds alone, the listener turns round (the door now on its
    /// left): the tail's balance turns over several periods.
    @Test func anotherRoomsReverbTurnsOverSeveralPeriodsWhenTheListenerTurns() throws {
        try withOfflineEngine { engine in
            let scene = try AcousticSceneTests.twoRooms()
            try scene.setOpenness(1, ofPortal: "door")
            engine.listenerPosition = Audio3DPoint(x: -0.5, y: 1, z: 2.5)
            engine.listenerAngularOrientation = Audio3DAngularOrientation(yaw: 90, pitch: 0, roll: 0)
            let sound = try NoiseBurst.sound(on: engine, frames: 48_000)
            let voice = sound.play(looping: .forever)
            voice.position = Audio3DPoint(x: 1.5, y: 1, z: 0.5)
            voice.reverbBlend = 1
            let simulation = AcousticSimulation(engine: engine, scene: scene)
            simulation.update()
            let period = engine.updateInterval
            // The burst, then 50 ms for the direct sound to end.
            _ = try engine.render(frames: 7_200)
            let before = Self.rightOverLeft(try engine.render(frames: period))
            engine.listenerAngularOrientation = Audio3DAngularOrientation(yaw: -90, pitch: 0, roll: 0)
            simulation.update()
            var balances: [Double] = []
            for _ in 0..<16 { balances.append(Self.rightOverLeft(try engine.render(frames: period))) }
            let after = Self.rightOverLeft(try engine.render(frames: 4 * period))
            #expect(before > 3 && after < -3, "before \(before) dB, after \(after) dB")
            // 7 periods on the way (a jump: 2, the tail being noise).
            let between = balances.filter { $0 < before - 3 && $0 > after + 3 }
            #expect(between.count >= 5, "balances per period: \(balances.map { Int($0.rounded()) })")
        }
    }
}
