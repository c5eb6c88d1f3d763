import BackbeatMedia

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Sounds made in code for a game's tests: a sine to hear and measure, a
/// constant level to see gains and fades exactly.
public enum TestSignal {
    /// A sine of `frequency` Hz and `amplitude` peak, `duration` long, the same on every channel.
    ///
    /// - Parameters:
    ///   - frequency: in Hz.
    ///   - duration: rounded to whole frames.
    ///   - sampleRate: frames per second (default 48 kHz).
    ///   - amplitude: the peak, 0...1 (default 0.5).
    ///   - channels: interleaved channels (default mono).
    public static func sine(
        frequency: Double, duration: MediaTime, sampleRate: Int = 48_000, amplitude: Float = 0.5,
        channels: Int = 1
    ) -> PCMBuffer {
        let frames = Int(duration.frames(atSampleRate: sampleRate, rounding: .nearest))
        var samples = [Float](repeating: 0, count: frames * channels)
        for f in 0..<frames {
            let v = amplitude * Float(sin(2 * Double.pi * frequency * Double(f) / Double(sampleRate)))
            for c in 0..<channels { samples[f * channels + c] = v }
        }
        return buffer(samples, sampleRate: sampleRate, channels: channels)
    }

    /// A constant (DC) level, `frames` long, the same on every channel.
    ///
    /// - Parameters:
    ///   - value: the level.
    ///   - frames: the length in frames.
    ///   - sampleRate: frames per second (default 48 kHz).
    ///   - channels: interleaved channels (default mono).
    public static func constant(_ value: Float, frames: Int, sampleRate: Int = 48_000, channels: Int = 1) -> PCMBuffer {
        buffer([Float](repeating: value, count: frames * channels), sampleRate: sampleRate, channels: channels)
    }

    private static func buffer(_ samples: [Float], sampleRate: Int, channels: Int) -> PCMBuffer {
        do {
            return try PCMBuffer(format: AudioFormat(sampleRate: sampleRate, channelCount: channels), floats: samples)
        } catch {
            preconditionFailure("TestSignal: \(error)")
        }
    }
}
