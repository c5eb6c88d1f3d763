import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@Suite struct AssetReaderTests {
    /// 48 kHz to 44.1 kHz keeps a sine's frequency and the duration (frame count within ±1).
    @Test func resamplingKeepsFrequencyAndDuration() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("sine48k.wav")
            try await Media.write(
                TestSignal.sine(frequency: 1000, duration: MediaTime(seconds: 2), sampleRate: 48_000), to: url,
                as: .wav, commonFormat: .float32)
            let read = try Media.read(url, settings: AudioFormat(sampleRate: 44_100, channelCount: 1))
            #expect(read.format.sampleRate == 44_100)
            #expect(abs(read.floats.count - 88_200) <= 1, "\(read.floats.count) frames")
            // Frequency: rising zero crossings over the middle second, away from the filter's edges.
            let middle = read.floats[22_050..<66_150]
            #expect(abs(SampleAnalysis.risingZeroCrossings(middle) - 1000) <= 1)
            #expect(abs(SampleAnalysis.peak(middle) - 0.5) < 0.01)
            // Presentation times are contiguous at the output rate.
            var expected: Int64 = 0
            for buffer in read.buffers {
                #expect(buffer.presentationTime == MediaTime(frames: expected, sampleRate: 44_100))
                expected += Int64(buffer.frameCount)
            }
        }
    }

    @Test func nilSettingsGiveNativePCM() async throws {
        try await withTemporaryDirectory { dir in
            let wav = dir.appendingPathComponent("a.wav")
            let ogg = dir.appendingPathComponent("a.ogg")
            try await Media.write(Media.int16Signal(frames: 5000, channels: 1, sampleRate: 22_050), to: wav, as: .wav)
            try await Media.write(Fixtures.music(seconds: 0.2, sampleRate: 32_000), to: ogg, as: .oggVorbis)
            #expect(
                try Media.read(wav).format == AudioFormat(sampleRate: 22_050, channelCount: 1, commonFormat: .int16))
            #expect(
                try Media.read(ogg).format == AudioFormat(sampleRate: 32_000, channelCount: 2, commonFormat: .float32))
        }
    }

    /// A time range reads exactly its frames, stamped from the range's start, after a sample-accurate seek.
    @Test(arguments: [AudioFileType.wav, .oggVorbis, .flac])
    func timeRangeReadsExactFrames(type: AudioFileType) async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("a.\(type.pathExtension)")
            try await Media.write(Media.int16Signal(frames: 44_100), to: url, as: type)
            let whole = try Media.read(url, settings: AudioFormat(sampleRate: 44_100, channelCount: 2))
            let range = MediaTimeRange(
                start: MediaTime(frames: 10_000, sampleRate: 44_100), duration: MediaTime(seconds: 0.25))
            let part = try Media.read(
                url, settings: AudioFormat(sampleRate: 44_100, channelCount: 2), timeRange: range, framesPerBuffer: 1000
            )
            #expect(part.floats.count == 11_025 * 2)
            #expect(part.floats == Array(whole.floats[20_000..<(20_000 + 22_050)]))
            #expect(part.buffers.first?.presentationTime == MediaTime(frames: 10_000, sampleRate: 44_100))
            #expect(part.buffers.allSatisfy { $0.frameCount <= 1000 })
        }
    }

    @Test func channelMappingAndLayout() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("s.wav")
            // Left 0.5, right -0.25, constant.
            let frames = 1000
            let stereo = try PCMBuffer(
                format: AudioFormat(sampleRate: 8000, channelCount: 2),
                floats: (0..<frames).flatMap { _ in [Float(0.5), Float(-0.25)] })
            try await Media.write(stereo, to: url, as: .wav, commonFormat: .float32)

            let mono = try Media.read(url, settings: AudioFormat(sampleRate: 8000, channelCount: 1))
            #expect(mono.floats == [Float](repeating: 0.125, count: frames))

            let planar = try Media.read(
                url, settings: AudioFormat(sampleRate: 8000, channelCount: 2, isInterleaved: false),
                framesPerBuffer: 250)
            for buffer in planar.buffers {
                guard case .float32(let s) = buffer.samples else {
                    Issue.record("not float")
                    continue
                }
                #expect(s == [Float](repeating: 0.5, count: 250) + [Float](repeating: -0.25, count: 250))
                #expect(buffer.channel(1) == [Float](repeating: -0.25, count: 250))
            }

            let ints = try Media.read(
                url, settings: AudioFormat(sampleRate: 8000, channelCount: 4, commonFormat: .int16))
            #expect(ints.int16s.count == frames * 4)
            #expect(Array(ints.int16s.prefix(4)) == [16384, -8192, 0, 0])

            let monoURL = dir.appendingPathComponent("m.wav")
            try await Media.write(
                try PCMBuffer(format: AudioFormat(sampleRate: 8000, channelCount: 1), floats: [0.25, -0.5]),
                to: monoURL, as: .wav, commonFormat: .float32)
            #expect(
                try Media.read(monoURL, settings: AudioFormat(sampleRate: 8000, channelCount: 3)).floats == [
                    0.25, 0.25, 0, -0.5, -0.5, 0,
                ])
        }
    }

    /// Reading streams: buffers stay at the requested size whatever the file's length.
    @Test func readsInBoundedBuffers() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("long.ogg")
            try await Media.write(Fixtures.music(seconds: 3), to: url, as: .oggVorbis)
            let read = try Media.read(
                url, settings: AudioFormat(sampleRate: 48_000, channelCount: 2, commonFormat: .int16),
                framesPerBuffer: 2048)
            #expect(read.buffers.count > 50)
            #expect(read.buffers.allSatisfy { $0.frameCount <= 2048 * 48_000 / 44_100 + 64 })
            #expect(abs(read.int16s.count / 2 - 144_000) <= 1)
        }
    }

    @Test func misuseIsATypedError() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("a.wav")
            try await Media.write(Media.int16Signal(frames: 10), to: url, as: .wav)
            let reader = try AssetReader(asset: AudioAsset(url: url))
            #expect { try reader.startReading() } throws: { BackbeatError.Code.invalidArgument.matches($0) }
            let output = AssetReaderTrackOutput(outputSettings: AudioFormat(sampleRate: 44_100, channelCount: 0))
            try reader.add(output)
            #expect { try reader.add(AssetReaderTrackOutput(outputSettings: nil)) } throws: {
                BackbeatError.Code.invalidArgument.matches($0)
            }
            #expect { try output.copyNextSampleBuffer() } throws: { BackbeatError.Code.invalidArgument.matches($0) }
            #expect { try reader.startReading() } throws: { BackbeatError.Code.invalidArgument.matches($0) }
            #expect(reader.status == .failed)
        }
    }
}
