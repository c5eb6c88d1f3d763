import Foundation
import Testing
import Backbeat
import BackbeatTesting
import BackbeatTestFixtures

@Suite struct AssetWriterTests {
    /// 16-bit PCM survives every lossless container exactly.
    @Test(arguments: [AudioFileType.wav, .aiff, .caf, .flac])
    func int16RoundTripIsExact(type: AudioFileType) async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("round.\(type.pathExtension)")
            let source = Media.int16Signal(frames: 30_000)
            try await Media.write(source, to: url, as: type)
            let read = try Media.read(url)
            #expect(read.format == AudioFormat(sampleRate: 44_100, channelCount: 2, commonFormat: .int16))
            #expect(read.int16s == { if case .int16(let s) = source.samples { s } else { [] } }())
            #expect(Media.listing(dir) == [url.lastPathComponent])
        }
    }

    /// 32-bit float PCM survives WAV, AIFF and CAF exactly.
    @Test(arguments: [AudioFileType.wav, .aiff, .caf])
    func float32RoundTripIsExact(type: AudioFileType) async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("round.\(type.pathExtension)")
            let source = Fixtures.music(seconds: 0.5, sampleRate: 48_000, channels: 3)
            try await Media.write(source, to: url, as: type)
            let read = try Media.read(url)
            #expect(read.format == AudioFormat(sampleRate: 48_000, channelCount: 3, commonFormat: .float32))
            #expect(read.floats == source.interleavedFloats)
        }
    }

    /// Ogg Vorbis is lossy: at quality 0.5 the error stays under 3% of the signal's RMS, with exact length.
    @Test func oggVorbisRoundTripStaysWithinTolerance() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("round.ogg")
            let source = Fixtures.music(seconds: 2)
            try await Media.write(source, to: url, as: .oggVorbis, quality: 0.5)
            let read = try Media.read(url)
            #expect(read.format == AudioFormat(sampleRate: 44_100, channelCount: 2, commonFormat: .float32))
            let original = source.interleavedFloats
            #expect(read.floats.count == original.count)
            let error = zip(read.floats, original).map { $0 - $1 }
            let ratio = SampleAnalysis.rms(error) / SampleAnalysis.rms(original)
            #expect(ratio < 0.03, "relative RMS error \(ratio)")
        }
    }

    @Test func oggVorbisKeepsEveryTagAndArtwork() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("tagged.ogg")
            let tags = AudioTags(title: "Theme", artist: "Band", albumTitle: "Game OST", albumArtist: "Various", genre: "Chiptune",
                                 composer: "Writer", trackNumber: 4, discNumber: 2, date: "2024-03-01", isCompilation: true,
                                 artwork: [Artwork(data: Media.png, mimeType: "image/png", width: 64, height: 48),
                                           Artwork(data: Data([1, 2, 3]), mimeType: "image/jpeg", width: 1, height: 2, pictureType: 4)])
            try await Media.write(Fixtures.music(seconds: 0.3), to: url, as: .oggVorbis, tags: tags)
            #expect(try await AudioAsset(url: url).load(.tags) == tags)
        }
    }

    @Test(arguments: [AudioFileType.wav, .flac, .aiff])
    func pcmContainersKeepLibsndfileTags(type: AudioFileType) async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("tagged.\(type.pathExtension)")
            let tags = AudioTags(title: "Theme", artist: "Band", albumTitle: "Game OST", genre: "Chiptune", trackNumber: 4, date: "2024")
            try await Media.write(Media.int16Signal(frames: 1000), to: url, as: type, tags: tags)
            let read = try await AudioAsset(url: url).load(.tags)
            #expect(read.title == "Theme")
            #expect(read.artist == "Band")
            if type != .aiff {
                #expect(read.albumTitle == "Game OST")
                #expect(read.genre == "Chiptune")
            }
            #expect(read.composer == nil)
        }
    }

    @Test func neverOverwritesUnlessAsked() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("x.wav")
            try Data("keep".utf8).write(to: url)
            #expect(throws: BackbeatError.self) { _ = try AssetWriter(outputURL: url, fileType: .wav) }
            do { _ = try AssetWriter(outputURL: url, fileType: .wav) } catch let e as BackbeatError {
                #expect(e.code == .fileExists)
                #expect(e.url == url)
            }
            #expect(try Data(contentsOf: url) == Data("keep".utf8))
            try await Media.write(Media.int16Signal(frames: 100), to: url, as: .wav, overwrite: true)
            #expect(try Media.read(url).int16s.count == 200)
            #expect(Media.listing(dir) == ["x.wav"])
        }
    }

    @Test func missingDirectoryIsATypedError() throws {
        let url = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/x.ogg")
        do {
            _ = try AssetWriter(outputURL: url, fileType: .oggVorbis)
            Issue.record("no error")
        } catch let e as BackbeatError {
            #expect(e.code == .writeFailed)
            #expect(e.description.contains("directory does not exist"))
        }
    }

    /// A cancelled or failed write, or a dropped writer, leaves nothing behind.
    @Test(arguments: [AudioFileType.wav, .oggVorbis])
    func cancelledOrFailedWritesLeaveNothing(type: AudioFileType) throws {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("x.\(type.pathExtension)")
            let writer = try AssetWriter(outputURL: url, fileType: type)
            let input = AssetWriterInput(outputSettings: AudioFormat(sampleRate: 44_100, channelCount: 2))
            try writer.add(input)
            try writer.startWriting()
            try input.append(Fixtures.music(seconds: 0.2))
            #expect(Media.listing(dir).count == 1)  // the hidden temporary file
            #expect(!FileManager.default.fileExists(atPath: url.path))
            writer.cancelWriting()
            #expect(writer.status == .cancelled)
            #expect(!input.isReadyForMoreMediaData)
            #expect(Media.listing(dir).isEmpty)

            // A mismatched buffer is refused without harming the file; dropping the writer removes it.
            do {
                let w = try AssetWriter(outputURL: url, fileType: type)
                let i = AssetWriterInput(outputSettings: AudioFormat(sampleRate: 44_100, channelCount: 2))
                try w.add(i)
                try w.startWriting()
                #expect(throws: BackbeatError.self) { try i.append(Fixtures.music(seconds: 0.1, sampleRate: 48_000)) }
                #expect(w.status == .writing)
            }
            #expect(Media.listing(dir).isEmpty)
        }
    }

    @Test func vorbisRejectsImpossibleSettings() throws {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("x.ogg")
            let writer = try AssetWriter(outputURL: url, fileType: .oggVorbis)
            try writer.add(AssetWriterInput(outputSettings: AudioFormat(sampleRate: 700_000, channelCount: 2)))
            #expect { try writer.startWriting() } throws: { BackbeatError.Code.unsupportedFormat.matches($0) }
            #expect(writer.status == .failed)
            #expect(Media.listing(dir).isEmpty)
        }
    }
}
