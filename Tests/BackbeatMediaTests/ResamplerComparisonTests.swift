import Backbeat
import BackbeatTestFixtures
import Foundation
import Testing

/// How far a 16-kHz tone at 44.1 kHz comes out from the ideal tone at 48 kHz
/// through Backbeat's stream resampler (its polyphase filter), and
/// through raw OpenAL Soft's own resampler (its default, linear in 1.19.1),
/// which is what a game without Backbeat gets when it hands OpenAL a 44.1-kHz
/// song: the figures the Devices article gives beside the resampler choice.
@Suite struct ResamplerComparisonTests {
    static let amplitude = 0.5

    /// A tone at 44.1 kHz, one second, stereo.
    static func tone(_ frequency: Double) -> [Float] {
        var samples = [Float](repeating: 0, count: 44_100 * 2)
        for i in 0..<44_100 {
            let value = Float(amplitude * sin(2 * Double.pi * frequency * Double(i) / 44_100))
            samples[2 * i] = value
            samples[2 * i + 1] = value
        }
        return samples
    }

    /// The tone in the left channel of `out` (interleaved stereo at 48 kHz),
    /// fitted over frames 4,800..<43,200: its amplitude, and its error against
    /// the ideal tone at `amplitude` (in dB of the ideal's power). The ideal's
    /// phase is fitted (OpenAL's output is delayed by its limiter); its
    /// amplitude is the path's gain at 1 kHz, so a level lost at 16 kHz counts.
    static func fit(_ out: [Float], frequency: Double, amplitude: Double) -> (amplitude: Double, error: Double) {
        let w = 2 * Double.pi * frequency / 48_000
        let range = 4_800..<43_200
        // Least squares for y ≈ a·sin + b·cos.
        var ss = 0.0
        var cc = 0.0
        var sc = 0.0
        var ys = 0.0
        var yc = 0.0
        for i in range {
            let s = sin(w * Double(i))
            let c = cos(w * Double(i))
            let y = Double(out[2 * i])
            ss += s * s
            cc += c * c
            sc += s * c
            ys += y * s
            yc += y * c
        }
        let det = ss * cc - sc * sc
        let a = (ys * cc - yc * sc) / det
        let b = (yc * ss - ys * sc) / det
        let fitted = (a * a + b * b).squareRoot()
        var error = 0.0
        var power = 0.0
        for i in range {
            let ideal = amplitude * (a * sin(w * Double(i)) + b * cos(w * Double(i))) / fitted
            let y = Double(out[2 * i])
            error += (y - ideal) * (y - ideal)
            power += ideal * ideal
        }
        return (fitted, 10 * log10(error / power))
    }

    /// A path's error at 16 kHz and its level there against 1 kHz (dB).
    /// `speed` is how fast the path plays the sound: OpenAL Soft steps a
    /// source in 12-bit fixed point, so 44.1 kHz on 48 kHz plays at
    /// 3763/4096 input frames per output frame, not 0.91875, and its 16-kHz
    /// tone comes out at 15,999.15 Hz (fitting 16 kHz would count that
    /// 0.09-cent drift as error).
    static func measure(speed: Double = 1, _ path: ([Float]) throws -> [Float]) throws -> (
        error: Double, droop: Double
    ) {
        let reference = fit(try path(tone(1_000)), frequency: 1_000 * speed, amplitude: amplitude).amplitude
        let high = fit(try path(tone(16_000)), frequency: 16_000 * speed, amplitude: reference)
        return (high.error, 20 * log10(high.amplitude / reference))
    }

    @Test(
        "A 16-kHz tone resampled from 44.1 to 48 kHz: Backbeat's polyphase filter is within -80 dB of the ideal, far nearer than OpenAL Soft's default resampler"
    )
    func sixteenKilohertzThroughBothResamplers() throws {
        let sinc = try Self.measure { input in
            try withTemporaryDirectory { dir in
                let url = dir.appendingPathComponent("tone.wav")
                try Songs.write(input, to: url, sampleRate: 44_100)
                return try Media.read(url, settings: AudioFormat(sampleRate: 48_000, channelCount: 2)).floats
            }
        }
        let linear = try Self.measure(speed: 3_763.0 / 4_096 / (44_100.0 / 48_000)) { input in
            let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
            defer { engine.shutdown() }
            let sound = try SoundEffect(
                buffer: PCMBuffer(format: AudioFormat(sampleRate: 44_100, channelCount: 2), floats: input),
                name: "tone", loopPoints: nil, engine: engine)
            sound.play()
            return try engine.render(frames: 48_000)
        }
        print(
            String(
                format: "16-kHz tone, error against the ideal: Backbeat %.1f dB (%.2f dB against 1 kHz), "
                    + "OpenAL Soft's resampler %.1f dB (%.2f dB against 1 kHz)", sinc.error, sinc.droop,
                linear.error, linear.droop))
        #expect(sinc.error < -80, "Backbeat: \(sinc)")
        #expect(linear.error > sinc.error + 10, "OpenAL Soft: \(linear), Backbeat: \(sinc)")
    }
}
