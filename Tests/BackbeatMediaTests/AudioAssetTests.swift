import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@Suite struct AudioAssetTests {
    @Test func loadsPropertiesOfEachFormat() async throws {
        try await withTemporaryDirectory { dir in
            let cases: [(AudioFileType, String, String)] = [
                (.oggVorbis, "Ogg", "Vorbis"), (.wav, "WAV", "PCM 16-bit"), (.aiff, "AIFF", "PCM 16-bit"),
                (.caf, "CAF", "PCM 16-bit"), (.flac, "FLAC", "FLAC 16-bit"),
            ]
            for (type, container, codec) in cases {
                let url = dir.appendingPathComponent("a.\(type.pathExtension)")
                try await Media.write(
                    Media.int16Signal(frames: 22_050, sampleRate: 22_050), to: url, as: type,
                    tags: AudioTags(title: "T"))
                let asset = AudioAsset(url: url)
                let (duration, rate, channels) = try await asset.load(.duration, .sampleRate, .channelCount)
                #expect(duration == MediaTime(seconds: 1))
                #expect(rate == 22_050)
                #expect(channels == 2)
                #expect(try await asset.load(.containerFormat) == container)
                #expect(try await asset.load(.codec) == codec)
                #expect(try await asset.load(.frameCount) == 22_050)
                #expect(try await asset.load(.tags).title == "T")
            }
        }
    }

    /// Files libsndfile decodes that Backbeat does not write: MP3 is made by sox when it can; Opus is not checked here.
    @Test func readsFilesMadeBySox() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("sox.flac")
            let r = try runTool(
                "sox", ["-n", "-r", "16000", "-c", "1", "-b", "24", url.path, "synth", "0.5", "sine", "300"])
            #expect(r.status == 0)
            let asset = AudioAsset(url: url)
            #expect(try await asset.load(.codec) == "FLAC 24-bit")
            #expect(
                try await asset.load(.format)
                    == AudioFormat(sampleRate: 16_000, channelCount: 1, commonFormat: .float32))
            #expect(try await asset.load(.tags).isEmpty)
        }
    }

    /// Ogg Opus and MP3 decode through libsndfile; the fixtures are written by libsndfile's own encoders.
    @Test(arguments: [
        ("opus.ogg", SoundFileWriter.FileType(major: Int32(0x200000), subtype: Int32(0x0064)), "Ogg", "Opus"),
        ("a.mp3", SoundFileWriter.FileType(major: Int32(0x230000), subtype: Int32(0x0082)), "MP3", "MP3"),
    ])
    func readsOpusAndMP3(name: String, type: SoundFileWriter.FileType, container: String, codec: String) async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent(name)
            let sine = TestSignal.sine(frequency: 1000, duration: MediaTime(seconds: 1), sampleRate: 48_000)
            let writer = try SoundFileWriter(
                url: url, type: type, sampleRate: 48_000, channelCount: 1, overwrite: false)
            try writer.write(sine.interleavedFloats[...])
            try writer.finish()
            let asset = AudioAsset(url: url)
            #expect(try await asset.load(.containerFormat) == container)
            #expect(try await asset.load(.codec) == codec)
            #expect(try await asset.load(.sampleRate) == 48_000)
            let read = try Media.read(url, settings: AudioFormat(sampleRate: 48_000, channelCount: 1))
            // Lossy codecs add priming and padding; the tone itself must come through.
            #expect(abs(read.floats.count - 48_000) < 4_000, "\(read.floats.count) frames")
            let middle = read.floats[12_000..<36_000]
            #expect(abs(SampleAnalysis.risingZeroCrossings(middle) - 500) <= 2)
            #expect(abs(SampleAnalysis.peak(middle) - 0.5) < 0.1)
        }
    }

    static func expectError(
        _ url: URL, _ code: BackbeatError.Code, reason: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        do {
            _ = try await AudioAsset(url: url).load(.duration)
            Issue.record("no error for \(url.lastPathComponent)", sourceLocation: sourceLocation)
        } catch let error as BackbeatError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            #expect(error.url == url, sourceLocation: sourceLocation)
            #expect(error.description.hasPrefix(url.path), sourceLocation: sourceLocation)
            if let reason { #expect(error.description.contains(reason), "\(error)", sourceLocation: sourceLocation) }
        } catch {
            Issue.record("untyped error \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func missingDirectoryAndEmptyFiles() async throws {
        try await withTemporaryDirectory { dir in
            await Self.expectError(dir.appendingPathComponent("missing.ogg"), .fileNotFound)
            await Self.expectError(dir, .notAFile, reason: "directory")
            let empty = dir.appendingPathComponent("empty.wav")
            try Data().write(to: empty)
            await Self.expectError(empty, .emptyFile)
        }
    }

    /// An Ogg Vorbis file cut anywhere (inside the headers, mid-page, on a page boundary) is truncated.
    @Test func truncatedOggIsATypedError() async throws {
        try await withTemporaryDirectory { dir in
            let full = dir.appendingPathComponent("full.ogg")
            try await Media.write(Fixtures.music(seconds: 1), to: full, as: .oggVorbis)
            let bytes = try Data(contentsOf: full)
            // Page boundaries: every "OggS" capture pattern after the first.
            let pages = (1..<bytes.count - 4).filter {
                bytes[$0] == 0x4F && bytes[$0 + 1] == 0x67 && bytes[$0 + 2] == 0x67 && bytes[$0 + 3] == 0x53
            }
            let cuts = [30, 200, bytes.count / 2, bytes.count - 1] + pages
            for cut in cuts {
                let url = dir.appendingPathComponent("cut-\(cut).ogg")
                try bytes.prefix(cut).write(to: url)
                await Self.expectError(url, .truncatedFile)
            }
        }
    }

    @Test func randomBytesNamedOggAreCorrupt() async throws {
        try await withTemporaryDirectory { dir in
            var seed: UInt64 = 99
            let bytes = (0..<5000).map { _ in
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(seed >> 56)
            }
            let url = dir.appendingPathComponent("noise.ogg")
            try Data(bytes).write(to: url)
            await Self.expectError(url, .corruptFile)
            // Noise behind a genuine Ogg capture pattern is no valid Ogg stream either.
            let fake = dir.appendingPathComponent("fake.ogg")
            try (Data("OggS".utf8) + Data(bytes)).write(to: fake)
            await Self.expectError(fake, .corruptFile)
        }
    }

    @Test func wavWhoseHeaderLiesAboutItsSize() async throws {
        try await withTemporaryDirectory { dir in
            await Self.expectError(try await Media.lyingWAV(dir), .truncatedFile, reason: "claims 104000 bytes")
        }
    }

    @Test func unsupportedCodecs() async throws {
        try await withTemporaryDirectory { dir in
            // A WAV declaring AAC (format tag 0x00FF).
            let wav = dir.appendingPathComponent("aac.wav")
            try await Media.write(Media.int16Signal(frames: 100), to: wav, as: .wav)
            var bytes = [UInt8](try Data(contentsOf: wav))
            let fmt = try #require((0..<bytes.count - 4).first { bytes[$0..<$0 + 4] == Array("fmt ".utf8)[...] })
            bytes[fmt + 8] = 0xFF
            bytes[fmt + 9] = 0
            try Data(bytes).write(to: wav)
            await Self.expectError(wav, .unsupportedCodec, reason: "AAC")

            // An Ogg stream whose first packet is a Speex header: one complete end-of-stream page.
            var packet = Array("Speex   ".utf8) + [UInt8](repeating: 0, count: 72)
            packet[8] = 1
            var page: [UInt8] =
                Array("OggS".utf8) + [0, 0x02 | 0x04] + [UInt8](repeating: 0, count: 8) + [1, 0, 0, 0] + [0, 0, 0, 0]
                + [0, 0, 0, 0]
            page += [1, UInt8(packet.count)] + packet
            let speex = dir.appendingPathComponent("speex.ogg")
            try Data(page).write(to: speex)
            await Self.expectError(speex, .unsupportedCodec, reason: "Speex")
        }
    }

    /// A corrupt METADATA_BLOCK_PICTURE fails `.tags` with `.corruptArtwork`, but not the audio properties.
    @Test(arguments: ["!!!not base64!!!", "AAAAAwAAAAlpbWFnZS9wbmc=", "AAAAA/////8="])
    func corruptPictureIsATypedError(_ value: String) async throws {
        try await withTemporaryDirectory { dir in
            let wav = dir.appendingPathComponent("s.wav")
            try runTool("sox", ["-n", "-r", "8000", "-c", "1", "-b", "16", wav.path, "synth", "0.2", "sine", "300"])
            let ogg = dir.appendingPathComponent("pic.ogg")
            let r = try runTool(
                "oggenc", ["-Q", "-t", "Title", "-c", "METADATA_BLOCK_PICTURE=\(value)", "-o", ogg.path, wav.path])
            #expect(r.status == 0, "\(r.stderr)")
            let asset = AudioAsset(url: ogg)
            #expect(try await asset.load(.sampleRate) == 8000)
            do {
                _ = try await asset.load(.tags)
                Issue.record("no error")
            } catch let error as BackbeatError {
                #expect(error.code == .corruptArtwork)
                #expect(error.url == ogg)
            }
            // The decoder still hands the other tags to a scanner that wants them.
            let reading = try AudioDecoders.open(ogg).readTags()
            #expect(reading.tags.title == "Title")
            #expect(reading.artworkErrors.count == 1)
        }
    }
}
