import Backbeat
import BackbeatTesting
import Foundation
import Testing

/// A voice's own distance curve, source radius and rendering algorithm, on rendered samples.
@Suite("Voice rendering: distance override, source radius, pass-through")
struct VoiceTests {
    static func levels(_ out: [Float]) -> (left: Float, right: Float) {
        (
            SampleAnalysis.rms(SampleAnalysis.channel(out, 0, of: 2)),
            SampleAnalysis.rms(SampleAnalysis.channel(out, 1, of: 2))
        )
    }

    static func decibels(_ ratio: Float) -> Double { 20 * log10(Double(ratio)) }

    /// Both ears' levels after `change`, settled.
    static func heard(_ engine: AudioEngine, after change: () -> Void) throws -> (left: Float, right: Float) {
        change()
        _ = try engine.render(frames: 4_800)
        return levels(try engine.render(frames: 9_600))
    }

    static func tone(_ engine: AudioEngine, channels: Int = 1) throws -> SoundEffect {
        let mono = TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 1))
        guard channels == 2 else { return try SoundEffect(buffer: mono, name: "tone", engine: engine) }
        // Left: the tone; right: silence.
        let samples: [Float] = mono.interleavedFloats.flatMap { [$0, Float(0)] }
        let stereo = try PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 2), floats: samples)
        return try SoundEffect(buffer: stereo, name: "left tone", engine: engine)
    }

    @Test("A voice's own distance curve overrides the engine's, and follows its formula within 0.5 dB")
    func distanceOverride() throws {
        try withOfflineEngine { engine in
            let voice = try Self.tone(engine).play(looping: .forever)
            let near = try Self.heard(engine) { voice.position = Audio3DPoint(x: 0, y: 0, z: -1) }
            let linear = AudioDistanceAttenuationParameters(
                distanceAttenuationModel: .linear, referenceDistance: 1, maximumDistance: 10, rolloffFactor: 1)
            for distance: Float in [2, 5, 8] {
                let far = try Self.heard(engine) {
                    voice.distanceAttenuationParameters = linear
                    voice.position = Audio3DPoint(x: 0, y: 0, z: -distance)
                }
                let expected = 20 * log10(Double(linear.gain(atDistance: distance)))
                #expect(abs(Self.decibels(far.left / near.left) - expected) < 0.5, "linear at \(distance) m")
            }
            // The engine's curve changes; the voice keeps its own.
            let kept = try Self.heard(engine) {
                engine.distanceAttenuationParameters = AudioDistanceAttenuationParameters(
                    distanceAttenuationModel: .exponential, rolloffFactor: 2)
            }
            #expect(abs(Self.decibels(kept.left / near.left) - 20 * log10(Double(linear.gain(atDistance: 8)))) < 0.5)
            // Back to the engine's: exponential, rolloff 2, at 8 m.
            let engines = try Self.heard(engine) { voice.distanceAttenuationParameters = nil }
            #expect(abs(Self.decibels(engines.left / near.left) - 20 * log10(pow(8.0, -2.0))) < 0.5)
            // Invalid parameters are ignored.
            voice.distanceAttenuationParameters = AudioDistanceAttenuationParameters(referenceDistance: -1)
            #expect(voice.distanceAttenuationParameters == nil)
        }
    }

    @Test("A source radius spreads a voice: a point 2 m right is one-sided, a sphere around the listener is not")
    func sourceRadius() throws {
        try withOfflineEngine { engine in
            let voice = try Self.tone(engine).play(at: nil, position: Audio3DPoint(x: 2, y: 0, z: 0), looping: .forever)
            let point = try Self.heard(engine) {}
            #expect(point.left < point.right * 0.1, "a point at 90 degrees: the far ear more than 20 dB down")
            let inside = try Self.heard(engine) { voice.sourceRadius = 4 }
            #expect(abs(Self.decibels(inside.left / inside.right)) < 3, "inside the sphere: from all around")
            let edge = try Self.heard(engine) { voice.sourceRadius = 1.5 }
            #expect(edge.left > point.left * 3 && edge.left < edge.right * 0.9, "partly spread, still from the right")
            voice.sourceRadius = -1
            voice.sourceRadius = .nan
            #expect(voice.sourceRadius == 1.5)
        }
    }

    @Test("Stereo pass-through: a left-only stereo sound stays in the left ear, unmoved by position and distance")
    func stereoPassThrough() throws {
        try withOfflineEngine { engine in
            let voice = try Self.tone(engine, channels: 2).play(looping: .forever)
            let centred = try Self.heard(engine) { voice.renderingAlgorithm = .stereoPassThrough }
            // The input's left channel is a 0.5 sine: RMS 0.3536, passed at unity.
            #expect(abs(Self.decibels(centred.left / (0.5 / Float(2).squareRoot()))) < 0.1, "left to left at unity")
            #expect(centred.right < centred.left * 0.001, "nothing to the right")
            let placed = try Self.heard(engine) { voice.position = Audio3DPoint(x: 3, y: 0, z: 0) }
            #expect(abs(Self.decibels(placed.left / centred.left)) < 0.1, "no distance, no side")
            #expect(placed.right < placed.left * 0.001)
            let panned = try Self.heard(engine) {
                voice.position = nil
                voice.pan = 1
            }
            #expect(abs(Self.decibels(panned.left / centred.left)) < 0.1, "no pan either")
            // Placed again: 3 m to the right, attenuated and heard on the right.
            let spatial = try Self.heard(engine) {
                voice.renderingAlgorithm = .automatic
                voice.position = Audio3DPoint(x: 3, y: 0, z: 0)
            }
            #expect(spatial.right > spatial.left * 10 && spatial.right < centred.left * 0.5)
        }
    }
}
