import Backbeat
import BackbeatTesting
import Testing

@testable import BackbeatAcoustics

#if canImport(Glibc)
import Glibc
#endif

/// What the scene works out, heard: rendered through the offline engine.
@Suite struct RenderedOcclusionTests {
    /// Tones across each band (below OpenAL's 250 Hz shelf; above 8 kHz), a
    /// deterministic stand-in for noise that a Goertzel filter reads exactly.
    static let low: [Double] = [90, 140, 210]
    static let high: [Double] = [9_000, 11_500, 14_000]

    static func signal(sampleRate: Int) throws -> PCMBuffer {
        let frames = sampleRate
        var samples = [Float](repeating: 0, count: frames)
        for (k, frequency) in (low + [1_000, 3_000] + high).enumerated() {
            for i in 0..<frames {
                samples[i] += 0.1 * Float(sin(2 * Double.pi * frequency * Double(i) / Double(sampleRate) + Double(k)))
            }
        }
        return try PCMBuffer(format: AudioFormat(sampleRate: sampleRate, channelCount: 1), floats: samples)
    }

    /// Energy in the low and high bands of the rendered output (left channel), with `path` applied or not.
    static func bandEnergies(_ path: AcousticPath?) throws -> (low: Double, high: Double) {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(buffer: signal(sampleRate: 48_000), name: "tones", engine: engine)
            let voice = sound.play(looping: .forever)
            if let path { voice.apply(path) }
            _ = try engine.render(frames: 9_600)
            let left = SampleAnalysis.channel(try engine.render(frames: 48_000), 0, of: 2)
            func energy(_ frequencies: [Double]) -> Double {
                frequencies.reduce(0) {
                    let level = Double(SampleAnalysis.level(of: left, atFrequency: $1, sampleRate: 48_000))
                    return $0 + level * level
                }
            }
            return (energy(low), energy(high))
        }
    }

    @Test func aConcreteWallTakesThirtyDecibelsOffTheLowBandAndFortyFiveOffTheHigh() throws {
        let wall = TestGeometry.wall("wall", z: 0, x: -10...10, y: -10...10, material: .concrete)
        let scene = try AcousticScene(level: AcousticLevel(staticMeshes: [wall]))
        let path = scene.path(from: [0, 0, -1], to: [0, 0, 1])
        let open = try Self.bandEnergies(nil)
        let walled = try Self.bandEnergies(path)
        let lowLoss = -10 * log10(walled.low / open.low)
        let highLoss = -10 * log10(walled.high / open.high)
        #expect(lowLoss >= 30, "low band \(lowLoss) dB")
        #expect(highLoss >= 45, "high band \(highLoss) dB")
        // The low band is heard between the material's low and mid
        // transmissions (their geometric mean, -45 dB; see filterGains),
        // give or take the shelves' slopes.
        #expect(lowLoss < 50, "low band \(lowLoss) dB")
    }
}
