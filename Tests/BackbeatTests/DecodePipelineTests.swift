import Foundation
import Testing
import Backbeat
import BackbeatTestFixtures
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
}
