import Foundation
import Testing
import Backbeat
import BackbeatTesting
import BackbeatTestFixtures

@Suite("Spatial voices")
struct SpatialTests {
    private func levels(_ out: [Float]) -> (left: Float, right: Float) {
        (SampleAnalysis.rms(SampleAnalysis.channel(out, 0, of: 2)), SampleAnalysis.rms(SampleAnalysis.channel(out, 1, of: 2)))
    }

    private func decibels(_ ratio: Float) -> Double { 20 * log10(Double(ratio)) }

    @Test("A voice at +X is louder in the right ear, at -X in the left, by the same margin")
    func interauralLevel() throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 1)), name: "tone", engine: engine)
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

    @Test("Inverse-distance-clamped attenuation matches 1 / max(d, 1) within 0.5 dB", arguments: [Float(0.5), 2, 4, 10])
    func distanceAttenuation(distance: Float) throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 1)), name: "tone", engine: engine)
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

    @Test("Clearing the position pans the voice again; NaN and infinite points are ignored")
    func backTo2D() throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 1)), name: "tone", engine: engine)
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

    @Test("A stereo sound is not placed: same level near and far")
    func stereoUnplaced() throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 1), channels: 2), name: "tone", engine: engine)
            let voice = sound.play(looping: .forever)
            voice.position = Audio3DPoint(x: 0, y: 0, z: -1)
            _ = try engine.render(frames: 4_800)
            let near = SampleAnalysis.rms(try engine.render(frames: 9_600))
            voice.position = Audio3DPoint(x: 0, y: 0, z: -10)
            _ = try engine.render(frames: 4_800)
            let far = SampleAnalysis.rms(try engine.render(frames: 9_600))
            #expect(near > 0.1)
            #expect(abs(decibels(far / near)) < 0.5)
        }
    }
}
