import Backbeat
import BackbeatTestFixtures
import Foundation
import Testing

@testable import BackbeatMusic

/// The asset reader and streaming share one decode pipeline (decode, channel
/// map, resample): the same file comes out with the same samples through both.
@Suite struct DecodePipelineTests {
    /// Every chunk the stream decoder gives, read `frames` at a time from `frame`.
    static func streamed(_ url: URL, sampleRate: Int, from frame: Int64 = 0, frames: Int) throws -> [Float] {
        let decoder = try StreamDecoder(asset: AudioAsset(url: url), sampleRate: sampleRate)
        if frame > 0 { try decoder.seek(toFrame: frame) }
        var out: [Float] = []
        while true {
            let chunk = try decoder.read(frames: frames)
            if chunk.isEmpty { break }
            out += chunk
        }
        #expect(decoder.position == frame + Int64(out.count / StreamDecoder.channelCount))
        return out
    }

    @Test(
        "A file streamed matches the asset reader's stereo output at the same rate, sample for sample (rates and channel counts converted)",
        arguments: [(44_100, 1, 48_000), (48_000, 2, 44_100), (22_050, 3, 48_000), (48_000, 2, 48_000)])
    func streamingMatchesTheReader(sourceRate: Int, channels: Int, streamRate: Int) async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("signal.wav")
            let signal = Media.int16Signal(frames: sourceRate * 3 / 2, channels: channels, sampleRate: sourceRate)
            try await Media.write(signal, to: url, as: .wav, commonFormat: .float32)
            let read = try Media.read(url, settings: AudioFormat(sampleRate: streamRate, channelCount: 2))
            let streamed = try Self.streamed(url, sampleRate: streamRate, frames: 4_000)
            #expect(read.floats.count > streamRate * 2)
            #expect(streamed.count == read.floats.count)
            #expect(streamed == read.floats)
            #expect(streamed.contains { $0 != 0 })
        }
    }

    @Test("A seek in the stream matches the reader's time range from the same time")
    func seekMatchesTimeRange() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("signal.wav")
            try await Media.write(Media.int16Signal(frames: 44_100 * 2, channels: 1), to: url, as: .wav)
            let start = MediaTime(seconds: 0.5)
            let range = MediaTimeRange(start: start, end: MediaTime(seconds: 2))
            let read = try Media.read(url, settings: AudioFormat(sampleRate: 48_000, channelCount: 2), timeRange: range)
            let streamed = try Self.streamed(url, sampleRate: 48_000, from: 24_000, frames: 1_000)
            #expect(read.buffers.first?.presentationTime == MediaTime(frames: 24_000, sampleRate: 48_000))
            #expect(streamed.count == read.floats.count && streamed.count > 100_000)
            #expect(streamed == read.floats)
        }
    }

    /// The resampler is Backbeat's polyphase filter (``Resampler``), flat to
    /// 0.375 of the lower rate. A 1-, 10- and 16-kHz tone at 44.1 kHz come out
    /// at 48 kHz as the ideal tones, within -80 dB; a 21-kHz tone, high in the
    /// transition band, is cut by more than 20 dB.
    @Test(
        "Resampling 44.1 to 48 kHz keeps tones to 16 kHz within -80 dB of the ideal and cuts 21 kHz",
        arguments: [1_000.0, 10_000.0, 16_000.0, 21_000.0])
    func resamplingQuality(frequency: Double) throws {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("tone.wav")
            let frames = 44_100
            var samples = [Float](repeating: 0, count: frames * 2)
            for i in 0..<frames {
                let value = Float(0.5 * sin(2 * Double.pi * frequency * Double(i) / 44_100))
                samples[2 * i] = value
                samples[2 * i + 1] = value
            }
            try Songs.write(samples, to: url, sampleRate: 44_100)
            let read = try Media.read(url, settings: AudioFormat(sampleRate: 48_000, channelCount: 2))
            #expect(read.floats.count >= 48_000 * 2)
            // Away from the edges, where the resampler starts and stops.
            var error = 0.0
            var power = 0.0
            for i in 4_800..<43_200 {
                let ideal = 0.5 * sin(2 * Double.pi * frequency * Double(i) / 48_000)
                let out = Double(read.floats[2 * i])
                error += (out - ideal) * (out - ideal)
                power += ideal * ideal
            }
            let db = 10 * log10(error / power)
            if frequency < 17_000 {
                #expect(db < -80, "error \(db) dB at \(frequency) Hz")
            } else {
                var outPower = 0.0
                for i in 4_800..<43_200 { outPower += Double(read.floats[2 * i] * read.floats[2 * i]) }
                #expect(
                    10 * log10(outPower / power) < -20, "\(frequency) Hz passes at \(10 * log10(outPower / power)) dB")
            }
        }
    }
}
