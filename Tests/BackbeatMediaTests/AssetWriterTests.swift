import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

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
            let tags = AudioTags(
                title: "Theme", artist: "Band", albumTitle: "Game OST", albumArtist: "Various", genre: "Chiptune",
                composer: "Writer", trackNumber: 4, discNumber: 2, date: "2024-03-01", isCompilation: true,
                artwork: [
                    Artwork(data: Media.png, mimeType: "image/png", width: 64, height: 48),
                    Artwork(data: Data([1, 2, 3]), mimeType: "image/jpeg", width: 1, height: 2, pictureType: 4),
                ])
            try await Media.write(Fixtures.music(seconds: 0.3), to: url, as: .oggVorbis, tags: tags)
            #expect(try await AudioAsset(url: url).load(.tags) == tags)
        }
    }

    @Test(arguments: [AudioFileType.wav, .flac, .aiff])
    func pcmContainersKeepLibsndfileTags(type: AudioFileType) async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("tagged.\(type.pathExtension)")
            let tags = AudioTags(
                title: "Theme", artist: "Band", albumTitle: "Game OST", genre: "Chiptune", trackNumber: 4, date: "2024")
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

    /// A file that appears at the target while a writer works is someone
    /// else's: finishing fails with `.fileExists`, and their file is kept.
    @Test(arguments: [AudioFileType.wav, .oggVorbis])
    func aFileThatAppearsWhileWritingIsKept(type: AudioFileType) async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("x.\(type.pathExtension)")
            let writer = try AssetWriter(outputURL: url, fileType: type)
            let input = AssetWriterInput(outputSettings: AudioFormat(sampleRate: 44_100, channelCount: 2))
            try writer.add(input)
            try writer.startWriting()
            try input.append(Fixtures.music(seconds: 0.2))
            input.markAsFinished()
            try Data("theirs".utf8).write(to: url)
            await #expect { try await writer.finishWriting() } throws: { ($0 as? BackbeatError)?.code == .fileExists }
            #expect(try Data(contentsOf: url) == Data("theirs".utf8))
            #expect(Media.listing(dir) == [url.lastPathComponent])
        }
    }

    /// Publishing a file: its bytes are synchronised (fsync) before its name
    /// appears, and without `overwrite` the name is taken with link(2), which
    /// cannot replace a file that appeared in the meantime (a check, then a
    /// rename, could). Seen in the system calls of `backbeat convert`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")))
    func publishingSynchronisesFirstAndNeverReplacesUnlessAsked() async throws {
        try await withTemporaryDirectory { dir in
            let source = dir.appendingPathComponent("in.wav")
            try await Media.write(Fixtures.music(seconds: 0.2), to: source, as: .wav)
            for (name, overwrite) in [("new.ogg", false), ("new.ogg", true)] {
                let out = dir.appendingPathComponent(name)
                let log = dir.appendingPathComponent("strace-\(name)-\(overwrite).log")
                let arguments =
                    [
                        "-f", "-qq", "-e", "trace=fsync,fdatasync,rename,renameat,renameat2,link,linkat", "-o",
                        log.path,
                        try BackbeatTool.binary(), "convert", source.path, out.path,
                    ] + (overwrite ? ["--overwrite"] : [])
                let r = try runTool("strace", arguments)
                #expect(r.status == 0, "\(r.stderr)")
                let calls = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
                    .map { $0.drop { $0 != " " }.drop { $0 == " " } }  // without the pid column
                let publish = try #require(
                    calls.firstIndex {
                        ($0.hasPrefix("link") || $0.hasPrefix("rename")) && $0.contains(out.lastPathComponent + "\"")
                    },
                    "\(calls)")
                #expect(calls[..<publish].contains { $0.hasPrefix("fsync") }, "no fsync before \(calls[publish])")
                #expect(calls[publish].hasPrefix(overwrite ? "rename" : "link"), "\(calls[publish])")
                #expect(calls[(publish + 1)...].contains { $0.hasPrefix("fsync") }, "the directory is not synchronised")
            }
        }
    }

    /// The cap on FLAC metadata counts what is read (comments, pictures), not
    /// blocks that are skipped: 18 MiB of padding before the comments once
    /// cost a valid file its tags.
    @Test func flacTagsAfterLargeSkippedBlocksAreRead() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("padded.flac")
            try await Media.write(
                Media.int16Signal(frames: 1_000), to: url, as: .flac, tags: AudioTags(title: "After Padding"))
            var bytes = [UInt8](try Data(contentsOf: url))
            #expect(Array(bytes[0..<4]) == Array("fLaC".utf8) && bytes[4] & 0x7F == 0 && bytes[4] & 0x80 == 0)
            let paddingLength = 9 * 1024 * 1024
            let padding =
                [0x01, UInt8(paddingLength >> 16), UInt8(paddingLength >> 8 & 0xFF), UInt8(paddingLength & 0xFF)]
                + [UInt8](repeating: 0, count: paddingLength)
            bytes.insert(contentsOf: padding + padding, at: 4 + 4 + 34)  // after STREAMINFO
            try Data(bytes).write(to: url)
            #expect(try await AudioAsset(url: url).load(.tags).title == "After Padding")
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
