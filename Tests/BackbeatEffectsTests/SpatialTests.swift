import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatEngine

@Suite("Spatial voices")
struct SpatialTests {
    private func levels(_ out: [Float]) -> (left: Float, right: Float) {
        (
            SampleAnalysis.rms(SampleAnalysis.channel(out, 0, of: 2)),
            SampleAnalysis.rms(SampleAnalysis.channel(out, 1, of: 2))
        )
    }

    private func decibels(_ ratio: Float) -> Double { 20 * log10(Double(ratio)) }

    @Test("A voice at +X is louder in the right ear, at -X in the left, by the same margin")
    func interauralLevel() throws {
        try withOfflineEngine { engine in
            let sound = try toneEffect(440, on: engine)
            let voice = sound.play(looping: .forever)
            voice.position = Audio3DPoint(x: 1, y: 0, z: 0)
            _ = try engine.render(frames: 4_800)
            let right = levels(try engine.render(frames: 9_600))
            voice.position = Audio3DPoint(x: -1, y: 0, z: 0)
            _ = try engine.render(frames: 4_800)
            let left = levels(try engine.render(frames: 9_600))
            #expect(right.right > 0.1)
            #expect(right.left < right.right * 0.1, "at +90 degrees the right ear dominates by more than 20 dB")
            #expect(left.right < left.left * 0.1, "at -90 degrees the left ear dominates by more than 20 dB")
            #expect(abs(decibels(right.right / left.left)) < 0.5, "mirror images: the near ear hears the same level")
            #expect(abs(right.left - left.right) < 0.01, "mirror images: so does the far ear")
        }
    }

    @Test(
        "Inverse-distance-clamped attenuation matches 1 / max(d, 1) within 0.5 dB", arguments: [Float(0.5), 2, 4, 10])
    func distanceAttenuation(distance: Float) throws {
        try withOfflineEngine { engine in
            let sound = try toneEffect(440, on: engine)
            let voice = sound.play(looping: .forever)
            voice.position = Audio3DPoint(x: 0, y: 0, z: -1)
            _ = try engine.render(frames: 4_800)
            let near = levels(try engine.render(frames: 9_600))
            voice.position = Audio3DPoint(x: 0, y: 0, z: -distance)
            _ = try engine.render(frames: 4_800)
            let far = levels(try engine.render(frames: 9_600))
            let expected = 20 * log10(1 / Double(max(distance, 1)))
            #expect(abs(decibels(far.left / near.left) - expected) < 0.5)
            #expect(abs(decibels(far.right / near.right) - expected) < 0.5)
        }
    }

    @Test("play(position:) places a voice from its first frame; a NaN point plays it 2D")
    func placedFromTheStart() throws {
        try withOfflineEngine { engine in
            let sound = try toneEffect(440, on: engine)
            let placed = sound.play(at: nil, position: Audio3DPoint(x: 2, y: 0, z: 0))
            let first = levels(try engine.render(frames: 4_800))
            #expect(placed.position == Audio3DPoint(x: 2, y: 0, z: 0))
            #expect(first.right > 0.05)
            #expect(first.left < first.right * 0.1, "right from the first block on")
            placed.stop()
            _ = try engine.render(frames: 4_800)
            let unplaced = sound.play(at: nil, pan: -1, position: Audio3DPoint(x: .nan, y: 0, z: 0))
            let panned = levels(try engine.render(frames: 4_800))
            #expect(unplaced.position == nil)
            #expect(panned.right < panned.left * 0.1, "2D, panned left")
        }
    }

    @Test("Clearing the position pans the voice again; NaN and infinite points are ignored")
    func backTo2D() throws {
        try withOfflineEngine { engine in
            let sound = try toneEffect(440, on: engine)
            let voice = sound.play(pan: -1, looping: .forever)
            voice.position = Audio3DPoint(x: 0, y: 0, z: -8)
            voice.position = Audio3DPoint(x: .nan, y: 0, z: 0)
            voice.position = Audio3DPoint(x: 0, y: .infinity, z: 0)
            #expect(voice.position == Audio3DPoint(x: 0, y: 0, z: -8))
            _ = try engine.render(frames: 4_800)
            let placed = levels(try engine.render(frames: 9_600))
            #expect(abs(decibels(placed.left / placed.right)) < 1, "in front, centred")
            voice.position = nil
            _ = try engine.render(frames: 4_800)
            let panned = levels(try engine.render(frames: 9_600))
            #expect(decibels(panned.left / panned.right) > 20, "panned left again")
            #expect(panned.left > placed.left * 4, "no distance attenuation in 2D")
        }
    }

    @Test("A stereo sound is placed too: attenuated by distance and heard from its side")
    func stereoPlaced() throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 1), channels: 2), name: "tone",
                engine: engine)
            let voice = sound.play(looping: .forever)
            voice.position = Audio3DPoint(x: 0, y: 0, z: -1)
            _ = try engine.render(frames: 4_800)
            let near = levels(try engine.render(frames: 9_600))
            voice.position = Audio3DPoint(x: 0, y: 0, z: -10)
            _ = try engine.render(frames: 4_800)
            let far = levels(try engine.render(frames: 9_600))
            voice.position = Audio3DPoint(x: 1, y: 0, z: 0)
            _ = try engine.render(frames: 4_800)
            let side = levels(try engine.render(frames: 9_600))
            #expect(near.left > 0.1)
            #expect(abs(decibels(far.left / near.left) + 20) < 0.5, "10 m: -20 dB")
            #expect(side.left < side.right * 0.1, "at +X the right ear dominates")
            voice.position = nil
            _ = try engine.render(frames: 4_800)
            let panned = levels(try engine.render(frames: 9_600))
            #expect(abs(decibels(panned.left / panned.right)) < 0.5, "2D again: both channels at their angles")
        }
    }

    /// Left and right levels of a looping tone at `point`, after `setUp` has moved the listener.
    private func heard(at point: Audio3DPoint, _ setUp: (AudioEngine) -> Void) throws -> (left: Float, right: Float) {
        var result: (left: Float, right: Float) = (0, 0)
        try withOfflineEngine { engine in
            let sound = try toneEffect(440, on: engine)
            let voice = sound.play(looping: .forever)
            voice.position = point
            setUp(engine)
            _ = try engine.render(frames: 4_800)
            result = levels(try engine.render(frames: 9_600))
        }
        return result
    }

    @Test("Yaw 90 turns the listener right: a voice at -Z is heard on the left; yaw -90 on the right")
    func yaw() throws {
        let right = try heard(at: Audio3DPoint(x: 0, y: 0, z: -1)) {
            $0.listenerAngularOrientation = Audio3DAngularOrientation(yaw: 90, pitch: 0, roll: 0)
        }
        #expect(right.left > 0.1)
        #expect(right.right < right.left * 0.1)
        let left = try heard(at: Audio3DPoint(x: 0, y: 0, z: -1)) {
            $0.listenerAngularOrientation = Audio3DAngularOrientation(yaw: -90, pitch: 0, roll: 0)
        }
        #expect(left.right > 0.1)
        #expect(left.left < left.right * 0.1)
    }

    @Test("Facing +X by vectors is yaw 90; upside down (roll 180) swaps the ears")
    func vectorsAndRoll() throws {
        try withOfflineEngine { engine in
            engine.listenerVectorOrientation = Audio3DVectorOrientation(
                forward: Audio3DPoint(x: 3, y: 0, z: 0), up: Audio3DPoint(x: 0.5, y: 2, z: 0))
            let o = engine.listenerAngularOrientation
            #expect(abs(o.yaw - 90) < 0.01 && abs(o.pitch) < 0.01 && abs(o.roll) < 0.01)
            #expect(
                engine.listenerVectorOrientation
                    == Audio3DVectorOrientation(
                        forward: Audio3DPoint(x: 1, y: 0, z: 0), up: Audio3DPoint(x: 0, y: 1, z: 0)))
            engine.listenerAngularOrientation = Audio3DAngularOrientation(yaw: 30, pitch: 20, roll: -40)
            let back = engine.listenerAngularOrientation
            #expect(abs(back.yaw - 30) < 0.01 && abs(back.pitch - 20) < 0.01 && abs(back.roll + 40) < 0.01)
        }
        let flipped = try heard(at: Audio3DPoint(x: 1, y: 0, z: 0)) {
            $0.listenerAngularOrientation = Audio3DAngularOrientation(yaw: 0, pitch: 0, roll: 180)
        }
        #expect(flipped.left > 0.1)
        #expect(flipped.right < flipped.left * 0.1)
    }

    @Test("Voices are heard relative to the listener's position")
    func listenerPosition() throws {
        let beside = try heard(at: Audio3DPoint(x: 4, y: 0, z: 0)) {
            $0.listenerPosition = Audio3DPoint(x: 5, y: 0, z: 0)
        }
        #expect(beside.left > 0.1)
        #expect(beside.right < beside.left * 0.1, "one metre to the listener's left")
        let near = try heard(at: Audio3DPoint(x: 5, y: 0, z: -11)) {
            $0.listenerPosition = Audio3DPoint(x: 5, y: 0, z: -10)
        }
        let far = try heard(at: Audio3DPoint(x: 5, y: 0, z: -14)) {
            $0.listenerPosition = Audio3DPoint(x: 5, y: 0, z: -10)
        }
        #expect(abs(decibels(far.left / near.left) - 20 * log10(0.25)) < 0.5, "4 m away: -12 dB")
    }

    @Test("NaN, infinite, zero and parallel listener settings are ignored")
    func badListenerInput() throws {
        try withOfflineEngine { engine in
            engine.listenerPosition = Audio3DPoint(x: 1, y: 2, z: 3)
            engine.listenerPosition = Audio3DPoint(x: .nan, y: 0, z: 0)
            #expect(engine.listenerPosition == Audio3DPoint(x: 1, y: 2, z: 3))
            engine.listenerAngularOrientation = Audio3DAngularOrientation(yaw: 45, pitch: 0, roll: 0)
            engine.listenerAngularOrientation = Audio3DAngularOrientation(yaw: .infinity, pitch: 0, roll: 0)
            let zero = Audio3DPoint.zero
            let x = Audio3DPoint(x: 1, y: 0, z: 0)
            engine.listenerVectorOrientation = Audio3DVectorOrientation(forward: zero, up: x)
            engine.listenerVectorOrientation = Audio3DVectorOrientation(forward: x, up: Audio3DPoint(x: -2, y: 0, z: 0))
            engine.listenerVectorOrientation = Audio3DVectorOrientation(
                forward: x, up: Audio3DPoint(x: 0, y: .nan, z: 0))
            #expect(abs(engine.listenerAngularOrientation.yaw - 45) < 0.01)
            _ = try engine.render(frames: 4_800)
        }
    }

    @Test("The listener and the voice's position carry over to a replacement device")
    func survivesDeviceLoss() throws {
        try withOfflineEngine { engine in
            let sound = try toneEffect(440, on: engine)
            let voice = sound.play(looping: .forever)
            voice.position = Audio3DPoint(x: 0, y: 0, z: -2)
            engine.listenerAngularOrientation = Audio3DAngularOrientation(yaw: 90, pitch: 0, roll: 0)
            _ = try engine.render(frames: 4_800)
            let before = levels(try engine.render(frames: 9_600))
            engine.simulateDeviceLoss()
            _ = try engine.render(frames: 9_600)
            let after = levels(try engine.render(frames: 9_600))
            #expect(after.left > 0.1)
            #expect(after.right < after.left * 0.1, "still on the left")
            #expect(abs(decibels(after.left / before.left)) < 0.5, "still two metres away")
        }
    }

    @Test(
        "Each distance model is within 0.5 dB of its formula at several distances",
        arguments: AudioDistanceAttenuationModel.allCases)
    func distanceModels(model: AudioDistanceAttenuationModel) throws {
        try withOfflineEngine { engine in
            let parameters = AudioDistanceAttenuationParameters(
                distanceAttenuationModel: model, referenceDistance: 2,
                maximumDistance: 50, rolloffFactor: model == .linear ? 1 : 1.5)
            engine.distanceAttenuationParameters = parameters
            #expect(engine.distanceAttenuationParameters == parameters)
            let sound = try toneEffect(440, on: engine)
            let voice = sound.play(looping: .forever)
            voice.position = Audio3DPoint(x: 0, y: 0, z: -2)
            _ = try engine.render(frames: 4_800)
            let reference = levels(try engine.render(frames: 9_600)).left
            #expect(reference > 0.1)
            for distance: Float in [1, 3, 7, 20, 40, 80] {
                voice.position = Audio3DPoint(x: 0, y: 0, z: -distance)
                _ = try engine.render(frames: 4_800)
                let level = levels(try engine.render(frames: 9_600)).left
                let expected = parameters.gain(atDistance: distance)
                let formula: Float =
                    switch model {
                    case .inverse: 2 / (2 + 1.5 * (min(max(distance, 2), 50) - 2))
                    case .linear: 1 - (min(max(distance, 2), 50) - 2) / 48
                    case .exponential: pow(min(max(distance, 2), 50) / 2, -1.5)
                    }
                #expect(abs(expected - formula) < 1e-5, "gain(atDistance:) is the formula")
                if expected > 0.01 {
                    #expect(abs(decibels(level / reference) - decibels(expected)) < 0.5, "\(model) at \(distance) m")
                } else {
                    #expect(level < reference * 0.01, "\(model) at \(distance) m is silent")
                }
            }
        }
    }

    @Test("Distance parameters that make no curve are ignored")
    func badDistanceParameters() throws {
        try withOfflineEngine { engine in
            let good = AudioDistanceAttenuationParameters(distanceAttenuationModel: .exponential, referenceDistance: 3)
            engine.distanceAttenuationParameters = good
            for bad in [
                AudioDistanceAttenuationParameters(referenceDistance: 0),
                AudioDistanceAttenuationParameters(referenceDistance: .nan),
                AudioDistanceAttenuationParameters(referenceDistance: 10, maximumDistance: 5),
                AudioDistanceAttenuationParameters(maximumDistance: .infinity),
                AudioDistanceAttenuationParameters(rolloffFactor: -1),
            ] {
                #expect(!bad.isValid)
                engine.distanceAttenuationParameters = bad
            }
            #expect(engine.distanceAttenuationParameters == good)
        }
    }
}

@Suite("Doppler shift")
struct DopplerTests {
    /// The frequency of a steady tone, from its first and last rising zero
    /// crossings (each placed between samples by linear interpolation).
    static func frequency(_ samples: [Float], sampleRate: Int) -> Double {
        var first: Double?
        var last = 0.0
        var cycles = -1
        for i in 1..<samples.count where samples[i - 1] < 0 && samples[i] >= 0 {
            let t = Double(i - 1) + Double(-samples[i - 1]) / Double(samples[i] - samples[i - 1])
            if first == nil { first = t }
            last = t
            cycles += 1
        }
        guard let first, cycles > 0 else { return 0 }
        return Double(cycles) / (last - first) * Double(sampleRate)
    }

    /// Plays a 1 kHz tone at 0 0 -10 (ahead of the listener) with `velocity`,
    /// lets `setup` change the engine, and measures the heard frequency over one second.
    static func heard(velocity: Audio3DPoint, setup: (AudioEngine) -> Void = { _ in }) throws -> Double {
        try withOfflineEngine { engine in
            let sound = try toneEffect(1_000, on: engine)
            setup(engine)
            let voice = sound.play(at: nil, position: Audio3DPoint(x: 0, y: 0, z: -10), looping: .forever)
            voice.velocity = velocity
            _ = try engine.render(frames: 4_800)
            let out = try engine.render(frames: 48_000)
            return frequency(SampleAnalysis.channel(out, 0, of: 2), sampleRate: engine.sampleRate)
        }
    }

    /// f' = f (c + listener speed towards the source) / (c - source speed towards the listener), scaled by the factor.
    static func doppler(_ f: Double, c: Double = 343.3, factor: Double = 1, listener: Double = 0, source: Double)
        -> Double
    { f * (c + factor * listener) / (c - factor * source) }

    @Test("A still tone keeps its frequency")
    func still() throws {
        #expect(abs(try Self.heard(velocity: .zero) - 1_000) < 1)
    }

    @Test(
        "A moving voice is heard at the Doppler formula's frequency within 1% of the shift",
        arguments: [Float(20), -20, 60, -60])
    func movingSource(speedTowardsListener v: Float) throws {
        let heard = try Self.heard(velocity: Audio3DPoint(x: 0, y: 0, z: v))
        let expected = Self.doppler(1_000, source: Double(v))
        #expect(abs(heard - expected) < abs(expected - 1_000) * 0.01, "heard \(heard) Hz, expected \(expected) Hz")
    }

    @Test("Moving sideways gives no shift: only the speed along the line to the listener counts")
    func sideways() throws {
        #expect(abs(try Self.heard(velocity: Audio3DPoint(x: 30, y: 0, z: 0)) - 1_000) < 1)
    }

    @Test("A moving listener shifts the pitch as the formula says")
    func movingListener() throws {
        let heard = try Self.heard(velocity: .zero) { $0.listenerVelocity = Audio3DPoint(x: 0, y: 0, z: -30) }
        let expected = Self.doppler(1_000, listener: 30, source: 0)
        #expect(abs(heard - expected) < abs(expected - 1_000) * 0.01, "heard \(heard) Hz, expected \(expected) Hz")
    }

    @Test("dopplerFactor and speedOfSound scale the shift; 0 turns it off; bad values are ignored")
    func factorAndSpeed() throws {
        let doubled = try Self.heard(velocity: Audio3DPoint(x: 0, y: 0, z: 20)) { $0.dopplerFactor = 2 }
        let expectedDoubled = Self.doppler(1_000, factor: 2, source: 20)
        #expect(abs(doubled - expectedDoubled) < abs(expectedDoubled - 1_000) * 0.01, "heard \(doubled) Hz")
        let slow = try Self.heard(velocity: Audio3DPoint(x: 0, y: 0, z: 20)) { $0.speedOfSound = 100 }
        let expectedSlow = Self.doppler(1_000, c: 100, source: 20)
        #expect(abs(slow - expectedSlow) < abs(expectedSlow - 1_000) * 0.01, "heard \(slow) Hz")
        let off = try Self.heard(velocity: Audio3DPoint(x: 0, y: 0, z: 20)) { $0.dopplerFactor = 0 }
        #expect(abs(off - 1_000) < 1)
        try withOfflineEngine { engine in
            let sound = try toneEffect(1_000, on: engine)
            let voice = sound.play(at: nil, position: Audio3DPoint(x: 0, y: 0, z: -10), looping: .forever)
            for speed: Float in [1_000, -1_000, 3e38] {
                voice.velocity = Audio3DPoint(x: 0, y: 0, z: speed)
                let out = try engine.render(frames: 4_800)
                #expect(out.allSatisfy { $0.isFinite }, "supersonic \(speed) m/s renders finite samples")
            }
            engine.dopplerFactor = -1
            engine.dopplerFactor = .nan
            engine.speedOfSound = 0
            engine.speedOfSound = .infinity
            engine.listenerVelocity = Audio3DPoint(x: .nan, y: 0, z: 0)
            #expect(engine.dopplerFactor == 1 && engine.speedOfSound == 343.3 && engine.listenerVelocity == .zero)
        }
    }

    @Test("A 2D voice has no Doppler shift, and a voice placed back in 2D loses it")
    func twoDimensional() throws {
        try withOfflineEngine { engine in
            let sound = try toneEffect(1_000, on: engine)
            engine.listenerVelocity = Audio3DPoint(x: 0, y: 0, z: -30)
            let voice = sound.play(looping: .forever)
            voice.velocity = Audio3DPoint(x: 0, y: 0, z: 60)
            voice.velocity = Audio3DPoint(x: .infinity, y: 0, z: 0)
            #expect(voice.velocity == Audio3DPoint(x: 0, y: 0, z: 60))
            _ = try engine.render(frames: 4_800)
            let flat = Self.frequency(
                SampleAnalysis.channel(try engine.render(frames: 48_000), 0, of: 2), sampleRate: 48_000)
            #expect(abs(flat - 1_000) < 1)
            voice.position = Audio3DPoint(x: 0, y: 0, z: -10)
            _ = try engine.render(frames: 4_800)
            let placed = Self.frequency(
                SampleAnalysis.channel(try engine.render(frames: 48_000), 0, of: 2), sampleRate: 48_000)
            #expect(placed > 1_050)
            voice.position = nil
            _ = try engine.render(frames: 4_800)
            let back = Self.frequency(
                SampleAnalysis.channel(try engine.render(frames: 48_000), 0, of: 2), sampleRate: 48_000)
            #expect(abs(back - 1_000) < 1)
        }
    }
}

@Suite("Sound cones")
struct ConeTests {
    /// The right channel's RMS of a tone 2 m ahead of the listener, facing `direction`, with `cone`.
    static func level(frequency: Double = 440, direction: Audio3DPoint?, cone: AudioCone = AudioCone()) throws -> Float
    {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: frequency, duration: MediaTime(seconds: 1)), name: "tone",
                engine: engine)
            let voice = sound.play(at: nil, position: Audio3DPoint(x: 0, y: 0, z: -2), looping: .forever)
            voice.cone = cone
            voice.direction = direction
            _ = try engine.render(frames: 4_800)
            return SampleAnalysis.rms(SampleAnalysis.channel(try engine.render(frames: 9_600), 1, of: 2))
        }
    }

    static func decibels(_ ratio: Float) -> Double { 20 * log10(Double(ratio)) }

    static let cone = AudioCone(innerAngle: 60, outerAngle: 120, outerGain: 0.25)
    static let towards = Audio3DPoint(x: 0, y: 0, z: 1)
    static let away = Audio3DPoint(x: 0, y: 0, z: -1)

    /// A direction `degrees` off the line to the listener.
    static func off(_ degrees: Float) -> Audio3DPoint {
        let r = degrees * .pi / 180
        return Audio3DPoint(x: sin(r), y: 0, z: cos(r))
    }

    @Test("Behind a cone the level is outerGain within 0.5 dB; inside the inner angle it is full")
    func outerGain() throws {
        let omni = try Self.level(direction: nil, cone: Self.cone)
        let facing = try Self.level(direction: Self.towards, cone: Self.cone)
        let behind = try Self.level(direction: Self.away, cone: Self.cone)
        let inside = try Self.level(direction: Self.off(20), cone: Self.cone)
        let between = try Self.level(direction: Self.off(45), cone: Self.cone)
        #expect(omni > 0.05)
        #expect(abs(Self.decibels(facing / omni)) < 0.1, "facing the listener: full level")
        #expect(abs(Self.decibels(behind / facing) - Self.decibels(0.25)) < 0.5, "behind: outerGain")
        #expect(abs(Self.decibels(inside / facing)) < 0.1, "20 degrees off, inside the 60-degree cone: full")
        // 45 degrees off is 90 of a full angle: halfway from 60 to 120, gain halfway from 1 to 0.25.
        #expect(abs(Self.decibels(between / facing) - Self.decibels(0.625)) < 0.5, "between: linear in the angle")
    }

    @Test("outerHighFrequencyGain dulls the sound behind a cone: highs fall, lows keep outerGain")
    func outerHighFrequencyGain() throws {
        let dull = AudioCone(innerAngle: 60, outerAngle: 120, outerGain: 0.5, outerHighFrequencyGain: 0.1)
        let lowFacing = try Self.level(frequency: 200, direction: Self.towards, cone: dull)
        let lowBehind = try Self.level(frequency: 200, direction: Self.away, cone: dull)
        let highFacing = try Self.level(frequency: 12_000, direction: Self.towards, cone: dull)
        let highBehind = try Self.level(frequency: 12_000, direction: Self.away, cone: dull)
        let lows = Self.decibels(lowBehind / lowFacing)
        let highs = Self.decibels(highBehind / highFacing)
        #expect(abs(lows - Self.decibels(0.5)) < 1, "lows: \(lows) dB")
        #expect(highs < Self.decibels(0.5) - 10, "highs: \(highs) dB")
    }

    @Test("Bad cones and directions are ignored; a 2D voice has no cone")
    func badInput() throws {
        try withOfflineEngine { engine in
            let sound = try toneEffect(440, on: engine)
            let voice = sound.play(looping: .forever)
            voice.cone = Self.cone
            for bad in [
                AudioCone(innerAngle: .nan), AudioCone(innerAngle: -1), AudioCone(outerAngle: 361),
                AudioCone(innerAngle: 200, outerAngle: 100), AudioCone(outerGain: 2), AudioCone(outerGain: .infinity),
                AudioCone(outerHighFrequencyGain: -0.5),
            ] { voice.cone = bad }
            #expect(voice.cone == Self.cone)
            voice.direction = Self.away
            voice.direction = .zero
            voice.direction = Audio3DPoint(x: .nan, y: 0, z: 1)
            #expect(voice.direction == Self.away)
            _ = try engine.render(frames: 4_800)
            let flat = SampleAnalysis.rms(try engine.render(frames: 9_600))
            voice.direction = nil
            _ = try engine.render(frames: 4_800)
            #expect(abs(Self.decibels(SampleAnalysis.rms(try engine.render(frames: 9_600)) / flat)) < 0.1)
        }
    }
}

@Suite("HRTF")
struct HRTFTests {
    /// Left and right RMS of a 300 Hz tone 2 m to the right, with HRTF on or off.
    static func levels(hrtf: Bool) throws -> (left: Float, right: Float, enabled: Bool) {
        try withOfflineEngine { engine in
            engine.isHRTFEnabled = hrtf
            let sound = try toneEffect(300, on: engine)
            sound.play(at: nil, position: Audio3DPoint(x: 2, y: 0, z: 0), looping: .forever)
            _ = try engine.render(frames: 4_800)
            let out = try engine.render(frames: 9_600)
            return (
                SampleAnalysis.rms(SampleAnalysis.channel(out, 0, of: 2)),
                SampleAnalysis.rms(SampleAnalysis.channel(out, 1, of: 2)), engine.isHRTFEnabled
            )
        }
    }

    @Test("HRTF is really switched: the far ear hears a low tone through the head, not nothing")
    func switched() throws {
        let off = try Self.levels(hrtf: false)
        let on = try Self.levels(hrtf: true)
        #expect(!off.enabled && on.enabled)
        #expect(off.left < off.right * 0.1, "panned: the far ear more than 20 dB down")
        #expect(on.left > on.right * 0.1 && on.left < on.right, "HRTF: the far ear hears it, quieter")
    }
}
