import Foundation
import Testing

@testable import BackbeatMedia

/// Backbeat's polyphase resampler, the one every common rate pair goes
/// through: streaming gives the same samples whatever the chunks, the length
/// is the input's duration, going down cuts what would alias, and a ratio
/// with too many phases still converts, through libsamplerate.
@Suite struct PolyphaseResamplerTests {
    /// `frames` frames of a tone plus a little noise in every channel (each its own phase).
    static func signal(frames: Int, channels: Int, sampleRate: Int) -> [Float] {
        var state: UInt32 = 7
        var samples = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            for c in 0..<channels {
                state = state &* 1_664_525 &+ 1_013_904_223
                let noise = (Double(state >> 8) / Double(1 << 24) - 0.5) * 0.1
                let t = Double(i) / Double(sampleRate)
                samples[i * channels + c] = Float(0.4 * sin(2 * .pi * 997 * t + Double(c)) + noise)
            }
        }
        return samples
    }

    /// Resamples `input` in chunks of the given sizes (cycling), then ends it.
    static func resample(
        _ input: [Float], channels: Int, from source: Int, to target: Int, chunks: [Int],
        method: Resampler.Method = .automatic
    ) throws -> [Float] {
        let resampler = try Resampler(from: source, to: target, channelCount: channels, method: method)
        let frames = input.count / channels
        var out: [Float] = []
        var offset = 0
        var k = 0
        try input.withUnsafeBufferPointer { all in
            while offset < frames {
                let n = min(chunks[k % chunks.count], frames - offset)
                k += 1
                out += try resampler.process(all.baseAddress! + offset * channels, frames: n, endOfInput: false)
                offset += n
            }
            var none: Float = 0
            out += try resampler.process(&none, frames: 0, endOfInput: true)
        }
        return out
    }

    @Test(
        "Any chunking gives the same samples, and as many frames as the input lasts, rounded up",
        arguments: [
            (44_100, 48_000, 2), (48_000, 44_100, 1), (22_050, 48_000, 3), (96_000, 48_000, 2), (8_000, 48_000, 1),
        ])
    func chunkingAndLength(source: Int, target: Int, channels: Int) throws {
        let frames = source / 2 + 37
        let input = Self.signal(frames: frames, channels: channels, sampleRate: source)
        let whole = try Self.resample(input, channels: channels, from: source, to: target, chunks: [frames])
        let pieces = try Self.resample(
            input, channels: channels, from: source, to: target, chunks: [1, 0, 7, 4_096, 333])
        let resampler = try Resampler(from: source, to: target, channelCount: channels)
        #expect(resampler.isPolyphase)
        #expect(whole.count % channels == 0)
        #expect(whole.count / channels == (frames * target + source - 1) / source)
        #expect(pieces == whole)
        #expect(whole.allSatisfy { $0.isFinite })
    }

    /// A tone at 48 kHz taken down to 44.1 kHz, against the ideal tone there
    /// (dB of the ideal's power), away from the edges.
    static func downsampledError(_ frequency: Double) throws -> (error: Double, level: Double) {
        var input = [Float](repeating: 0, count: 48_000)
        for i in 0..<input.count { input[i] = Float(0.5 * sin(2 * .pi * frequency * Double(i) / 48_000)) }
        let out = try resample(input, channels: 1, from: 48_000, to: 44_100, chunks: [4_096])
        var error = 0.0
        var power = 0.0
        var level = 0.0
        for i in 4_410..<39_690 {
            let ideal = 0.5 * sin(2 * .pi * frequency * Double(i) / 44_100)
            error += (Double(out[i]) - ideal) * (Double(out[i]) - ideal)
            power += ideal * ideal
            level += Double(out[i]) * Double(out[i])
        }
        return (10 * log10(error / power), 10 * log10(level / power))
    }

    @Test(
        "Going down, 48 to 44.1 kHz: tones to 16 kHz within -80 dB of the ideal; 23 kHz, which would alias, under -80 dB"
    )
    func downsampling() throws {
        for frequency in [1_000.0, 10_000, 16_000] {
            let error = try Self.downsampledError(frequency).error
            #expect(error < -80, "\(frequency) Hz: error \(error) dB")
        }
        let alias = try Self.downsampledError(23_000).level
        #expect(alias < -80, "23 kHz comes through at \(alias) dB")
    }

    @Test("A constant stays constant through every phase")
    func directCurrent() throws {
        let input = [Float](repeating: 0.5, count: 44_100)
        let out = try Self.resample(input, channels: 1, from: 44_100, to: 48_000, chunks: [1_000])
        #expect(out[100..<47_900].allSatisfy { abs($0 - 0.5) < 1e-6 })
    }

    @Test("A ratio with more than 1,024 phases (44,056 to 48,000 Hz) converts through libsamplerate, as cleanly")
    func unusualRatio() throws {
        let resampler = try Resampler(from: 44_056, to: 48_000, channelCount: 1)
        #expect(!resampler.isPolyphase)
        var input = [Float](repeating: 0, count: 44_056)
        for i in 0..<input.count { input[i] = Float(0.5 * sin(2 * .pi * 1_000 * Double(i) / 44_056)) }
        let out = try Self.resample(input, channels: 1, from: 44_056, to: 48_000, chunks: [4_096])
        #expect(abs(out.count - 48_000) <= 1)
        var error = 0.0
        var power = 0.0
        for i in 4_800..<43_200 {
            let ideal = 0.5 * sin(2 * .pi * 1_000 * Double(i) / 48_000)
            error += (Double(out[i]) - ideal) * (Double(out[i]) - ideal)
            power += ideal * ideal
        }
        #expect(10 * log10(error / power) < -80)
    }

    @Test("The polyphase filter and libsamplerate agree on a band-limited signal within -80 dB")
    func agreesWithLibsamplerate() throws {
        let input = Self.signal(frames: 22_050, channels: 2, sampleRate: 44_100).enumerated().map {
            // Keep the tone, drop the broadband noise, so both filters' passbands hold all of it.
            Float(0.4 * sin(2 * .pi * 997 * Double($0.offset / 2) / 44_100 + Double($0.offset % 2)))
        }
        let ours = try Self.resample(input, channels: 2, from: 44_100, to: 48_000, chunks: [4_096])
        let theirs = try Self.resample(
            input, channels: 2, from: 44_100, to: 48_000, chunks: [4_096], method: .libsamplerate)
        #expect(abs(ours.count - theirs.count) <= 2)
        var error = 0.0
        var power = 0.0
        for i in 4_800..<(min(ours.count, theirs.count) - 4_800) {
            error += Double(ours[i] - theirs[i]) * Double(ours[i] - theirs[i])
            power += Double(theirs[i]) * Double(theirs[i])
        }
        #expect(10 * log10(error / power) < -80)
    }
}
