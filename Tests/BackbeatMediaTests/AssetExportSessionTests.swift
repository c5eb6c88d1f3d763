import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@Suite struct AssetExportSessionTests {
    @Test func cdPresetMakes44kStereo16BitWAV() async throws {
        try await withTemporaryDirectory { dir in
            let source = dir.appendingPathComponent("mono48k.ogg")
            try await Media.write(
                TestSignal.sine(frequency: 441, duration: MediaTime(seconds: 1), sampleRate: 48_000), to: source,
                as: .oggVorbis)
            let session = AssetExportSession(asset: AudioAsset(url: source), preset: .cdQuality)
            #expect(session.status == .waiting)
            let out = dir.appendingPathComponent("cd.wav")
            try await session.export(to: out)
            #expect(session.status == .completed)
            #expect(session.progress == 1)
            let read = try Media.read(out)
            #expect(read.format == AudioFormat(sampleRate: 44_100, channelCount: 2, commonFormat: .int16))
            #expect(abs(read.int16s.count / 2 - 44_100) <= 1)
            let left = SampleAnalysis.channel(read.int16s.map { Float($0) / 32768 }, 0, of: 2)
            #expect(abs(SampleAnalysis.risingZeroCrossings(left[4410..<39690]) - 353) <= 1)  // 0.8 s of 441 Hz
            // Little-endian RIFF, 16-bit PCM, 2 channels, 44100 Hz, in the header.
            let header = [UInt8](try Data(contentsOf: out).prefix(36))
            #expect(header[0..<4] == Array("RIFF".utf8)[...])
            #expect(header[20] == 1 && header[22] == 2 && header[34] == 16)
            #expect(UInt32(header[24]) | UInt32(header[25]) << 8 | UInt32(header[26]) << 16 == 44_100)
        }
    }

    @Test func passthroughIsAByteExactCopy() async throws {
        try await withTemporaryDirectory { dir in
            let source = dir.appendingPathComponent("a.ogg")
            try await Media.write(Fixtures.music(seconds: 0.5), to: source, as: .oggVorbis, tags: AudioTags(title: "x"))
            let out = dir.appendingPathComponent("copy.ogg")
            let session = AssetExportSession(asset: AudioAsset(url: source), preset: .passthrough)
            try await session.export(to: out)
            #expect(try Data(contentsOf: out) == Data(contentsOf: source))
            // Passthrough cannot change the container.
            let wrong = AssetExportSession(asset: AudioAsset(url: source), preset: .passthrough)
            await #expect { try await wrong.export(to: dir.appendingPathComponent("copy.wav")) } throws: {
                BackbeatError.Code.unsupportedFormat.matches($0)
            }
            #expect(wrong.status == .failed)
            #expect(Media.listing(dir) == ["a.ogg", "copy.ogg"])
        }
    }

    @Test func flacAndVorbisPresetsKeepTags() async throws {
        try await withTemporaryDirectory { dir in
            let source = dir.appendingPathComponent("a.wav")
            let signal = Media.int16Signal(frames: 20_000)
            try await Media.write(signal, to: source, as: .wav, tags: AudioTags(title: "Song", artist: "Band"))
            let flac = dir.appendingPathComponent("a.flac")
            try await AssetExportSession(asset: AudioAsset(url: source), preset: .flac).export(to: flac)
            #expect(try Media.read(flac).int16s == Media.read(source).int16s)
            #expect(try await AudioAsset(url: flac).load(.tags) == AudioTags(title: "Song", artist: "Band"))

            let ogg = dir.appendingPathComponent("a.ogg")
            try await AssetExportSession(asset: AudioAsset(url: flac), preset: .oggVorbis(quality: 0.2)).export(to: ogg)
            let asset = AudioAsset(url: ogg)
            #expect(try await asset.load(.codec) == "Vorbis")
            #expect(try await asset.load(.frameCount) == 20_000)
            #expect(try await asset.load(.tags).artist == "Band")
        }
    }

    @Test func customSettingsAndTimeRange() async throws {
        try await withTemporaryDirectory { dir in
            let source = dir.appendingPathComponent("a.wav")
            try await Media.write(Media.int16Signal(frames: 44_100), to: source, as: .wav)
            let out = dir.appendingPathComponent("b.caf")
            let range = MediaTimeRange(start: MediaTime(seconds: 0.5), duration: MediaTime(seconds: 0.25))
            let session = AssetExportSession(
                asset: AudioAsset(url: source),
                preset: .custom(sampleRate: nil, channelCount: 1, commonFormat: .float32, quality: nil),
                timeRange: range)
            try await session.export(to: out)
            let read = try Media.read(out)
            #expect(read.format == AudioFormat(sampleRate: 44_100, channelCount: 1, commonFormat: .float32))
            #expect(read.floats.count == 11_025)
            let whole = try Media.read(source, settings: AudioFormat(sampleRate: 44_100, channelCount: 1))
            #expect(read.floats == Array(whole.floats[22_050..<33_075]))
        }
    }

    @Test func completionHandlerReportsTheOutcome() async throws {
        try await withTemporaryDirectory { dir in
            let source = dir.appendingPathComponent("a.wav")
            try await Media.write(Media.int16Signal(frames: 1000), to: source, as: .wav)
            let session = AssetExportSession(asset: AudioAsset(url: source), preset: .flac)
            let outcome: BackbeatError?? = await withCheckedContinuation { continuation in
                session.exportAsynchronously(to: dir.appendingPathComponent("b.flac")) {
                    continuation.resume(returning: $0)
                }
            }
            #expect(outcome == .some(nil))
            #expect(session.status == .completed)
            let failing = AssetExportSession(
                asset: AudioAsset(url: dir.appendingPathComponent("none.wav")), preset: .flac)
            let error: BackbeatError? = await withCheckedContinuation { continuation in
                failing.exportAsynchronously(to: dir.appendingPathComponent("c.flac")) {
                    continuation.resume(returning: $0)
                }
            }
            #expect(error?.code == .fileNotFound)
            #expect(Media.listing(dir) == ["a.wav", "b.flac"])
        }
    }

    @Test func cancelledExportLeavesNothing() async throws {
        try await withTemporaryDirectory { dir in
            let source = dir.appendingPathComponent("a.wav")
            try await Media.write(Media.int16Signal(frames: 10_000), to: source, as: .wav)
            let session = AssetExportSession(asset: AudioAsset(url: source), preset: .flac)
            session.cancelExport()
            await #expect { try await session.export(to: dir.appendingPathComponent("b.flac")) } throws: {
                BackbeatError.Code.cancelled.matches($0)
            }
            #expect(session.status == .cancelled)
            #expect(Media.listing(dir) == ["a.wav"])

            // Cancelling the task cancels the export too. The export starts only
            // once the task is cancelled (waiting on a stream ends then), so a
            // quick copy cannot finish first.
            let (gate, gateKeeper) = AsyncStream<Void>.makeStream()
            let task = Task {
                for await _ in gate {}
                try await AssetExportSession(asset: AudioAsset(url: source), preset: .passthrough).export(
                    to: dir.appendingPathComponent("c.wav"))
            }
            task.cancel()
            await #expect(throws: BackbeatError.self) { try await task.value }
            gateKeeper.finish()
            #expect(Media.listing(dir) == ["a.wav"])
        }
    }

    @Test func badSourcesAndDestinationsFailCleanly() async throws {
        try await withTemporaryDirectory { dir in
            let source = dir.appendingPathComponent("a.wav")
            try await Media.write(Media.int16Signal(frames: 100), to: source, as: .wav)
            let existing = dir.appendingPathComponent("exists.wav")
            try Data("old".utf8).write(to: existing)
            let cases: [(URL, URL, BackbeatError.Code)] = [
                (dir.appendingPathComponent("missing.wav"), dir.appendingPathComponent("o1.wav"), .fileNotFound),
                (source, dir.appendingPathComponent("no/such/dir/o.wav"), .writeFailed),
                (source, existing, .fileExists),
                (source, dir.appendingPathComponent("o.mp4"), .unsupportedFormat),
                (try await Media.lyingWAV(dir), dir.appendingPathComponent("o2.wav"), .truncatedFile),
            ]
            for (from, to, code) in cases {
                let session = AssetExportSession(asset: AudioAsset(url: from), preset: .cdQuality)
                await #expect { try await session.export(to: to) } throws: { code.matches($0) }
                #expect(session.status == .failed)
                #expect(session.error?.code == code)
            }
            #expect(Media.listing(dir) == ["a.wav", "exists.wav", "lie.wav"])
            #expect(try Data(contentsOf: existing) == Data("old".utf8))
        }
    }
}
