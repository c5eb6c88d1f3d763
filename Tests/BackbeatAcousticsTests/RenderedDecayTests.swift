import Backbeat
import BackbeatTesting
import Testing

@testable import BackbeatAcoustics

#if canImport(Glibc)
import Glibc
#endif

/// A room's reverb, heard: an impulse rendered into the reverb its shape
/// and materials give, its decay measured in the mid band.
@Suite struct RenderedDecayTests {
    /// A band-pass biquad (RBJ, 0 dB at the centre), run twice: the mid band's octave.
    static func bandPassed(_ samples: [Float], centre: Double, q: Double, sampleRate: Double) -> [Double] {
        let w0 = 2 * Double.pi * centre / sampleRate
        let alpha = sin(w0) / (2 * q)
        let a0 = 1 + alpha
        let (b0, b2) = (alpha / a0, -alpha / a0)
        let (a1, a2) = (-2 * cos(w0) / a0, (1 - alpha) / a0)
        var signal = samples.map(Double.init)
        for _ in 0..<2 {
            var (x1, x2, y1, y2) = (0.0, 0.0, 0.0, 0.0)
            for i in signal.indices {
                let x = signal[i]
                let y = b0 * x + b2 * x2 - a1 * y1 - a2 * y2
                (x2, x1, y2, y1) = (x1, x, y1, y)
                signal[i] = y
            }
        }
        return signal
    }

    /// The decay time from Schroeder's backward integral of `energy`
    /// (squared samples): the slope fitted between -5 and -25 dB (T20),
    /// extended to 60 dB.
    static func decayTime(energy: [Double], sampleRate: Double) -> Double {
        var remaining = [Double](repeating: 0, count: energy.count)
        var sum = 0.0
        for i in energy.indices.reversed() {
            sum += energy[i]
            remaining[i] = sum
        }
        let total = remaining[0]
        var points: [(t: Double, db: Double)] = []
        for (i, r) in remaining.enumerated() {
            let db = 10 * log10(r / total)
            if db <= -5 && db >= -25 { points.append((Double(i) / sampleRate, db)) }
        }
        guard points.count > 2 else { return 0 }
        let n = Double(points.count)
        let meanT = points.reduce(0) { $0 + $1.t } / n
        let meanDB = points.reduce(0) { $0 + $1.db } / n
        let slope =
            points.reduce(0) { $0 + ($1.t - meanT) * ($1.db - meanDB) }
            / points.reduce(0) { $0 + ($1.t - meanT) * ($1.t - meanT) }
        return -60 / slope
    }

    /// The mid band's decay time of `room` rendered: the room's reverb on
    /// the engine, one impulse sent to it, the direct sound left out.
    static func renderedDecayTime(of scene: AcousticScene, room: String, seconds: Double) throws -> Double {
        try withOfflineEngine { engine in
            let reverb = try #require(scene.reverbParameters(ofRoom: room))
            engine.reverbParameters = reverb
            // Let the reverb's glide from silence end before the impulse.
            _ = try engine.render(frames: 4_800)
            var impulse = [Float](repeating: 0, count: 480)
            impulse[0] = 0.5
            let sound = try SoundEffect(
                buffer: PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: impulse),
                name: "impulse", engine: engine)
            let voice = sound.play()
            voice.reverbBlend = 1
            let frames = Int(seconds * 48_000)
            let rendered = try engine.render(frames: frames)
            let left = SampleAnalysis.channel(rendered, 0, of: 2)
            let right = SampleAnalysis.channel(rendered, 1, of: 2)
            let onset = try #require(SampleAnalysis.firstAudibleFrame(rendered, channels: 2, threshold: 1e-3))
            // From 2 ms after the direct impulse: the reverb alone.
            let start = onset + 96
            let l = bandPassed(Array(left[start...]), centre: 1_414, q: 1.41, sampleRate: 48_000)
            let r = bandPassed(Array(right[start...]), centre: 1_414, q: 1.41, sampleRate: 48_000)
            let energy = zip(l, r).map { $0 * $0 + $1 * $1 }
            return decayTime(energy: energy, sampleRate: 48_000)
        }
    }

    /// Three shoebox rooms, each of one material, their Eyring decay times
    /// about 0.4, 0.8 and 1.7 s: short enough to render in about 4 s of audio in all.
    @Test(arguments: [
        ("small generic", SIMD3<Float>(3, 2.5, 4), AcousticMaterial.generic),
        ("medium rock", SIMD3<Float>(8, 4, 10), AcousticMaterial.rock),
        ("plaster", SIMD3<Float>(4, 3, 5), AcousticMaterial.plaster),
    ])
    func aShoeboxsRenderedDecayIsEyrings(_ name: String, _ size: SIMD3<Float>, _ material: AcousticMaterial) throws {
        let room = AcousticRoom(name: "room", mesh: TestGeometry.box("room", from: .zero, to: size, material: material))
        let scene = try AcousticScene(level: AcousticLevel(rooms: [room]))
        let eyring = Double(try #require(scene.acoustics(ofRoom: "room")).decayTimes.mid)
        let rendered = try Self.renderedDecayTime(of: scene, room: "room", seconds: 1.2 * eyring + 0.2)
        let error = rendered / eyring - 1
        #expect(abs(error) <= 0.15, "\(name): rendered \(rendered) s, Eyring \(eyring) s (\(Int(error * 100)) %)")
    }
}
