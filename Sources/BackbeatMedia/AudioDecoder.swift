import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A pull decoder: open a file, read the next frames as interleaved Float32 or
/// Int16 into a caller's buffer, seek to a frame. It never loads a whole song.
///
/// Others may rely on this (it is what the music streamer and the media
/// library build on):
/// - Open with ``AudioDecoders/open(_:)``. It checks the file first and throws a
///   ``BackbeatError`` with ``BackbeatError/Code/fileNotFound``, `.notAFile`,
///   `.emptyFile`, `.corruptFile`, `.truncatedFile` or `.unsupportedCodec`,
///   naming the file and the reason.
/// - `sampleRate`, `channelCount` and `frameCount` are known after opening and
///   never change. `frameCount` is exact for Ogg Vorbis, WAV, AIFF, CAF and
///   FLAC (libsndfile's estimate for MP3).
/// - Reads fill the buffer completely unless the end of the file comes first;
///   a return value of 0 means the end. Samples are interleaved; Float32 is
///   nominally in -1...1, Int16 is what `oggdec` writes for the same Vorbis file.
/// - `seek(toFrame:)` is sample-accurate; the next read starts at that frame.
/// - `readTags()` never fails on a damaged picture: the picture is left out
///   and its reason is in `artworkErrors`. ``AudioAsset`` turns such reasons
///   into a `.corruptArtwork` error; a scanner may choose to keep the other tags.
/// - A decoder is used by one thread at a time (it is not `Sendable`);
///   `close()` (or dropping it) frees the C handle.
package protocol AudioDecoder: AnyObject {
    /// The file being decoded.
    var url: URL { get }
    /// Frames per second.
    var sampleRate: Int { get }
    /// Channels per frame.
    var channelCount: Int { get }
    /// Frames in the whole file.
    var frameCount: Int64 { get }
    /// The container, such as `Ogg`, `WAV`, `AIFF`, `CAF`, `FLAC` or `MP3`.
    var container: String { get }
    /// The codec, such as `Vorbis`, `PCM 16-bit`, `FLAC 16-bit` or `MP3`.
    var codec: String { get }
    /// Int16 when the file stores 16 bits or fewer per integer sample, else Float32.
    var nativeCommonFormat: AudioFormat.CommonFormat { get }
    /// The frame the next read starts at.
    var position: Int64 { get }

    /// Reads up to `frames` interleaved frames into `buffer` (which holds at
    /// least `frames * channelCount` samples); returns the frames read, 0 at the end.
    func readFloats(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int
    /// Reads up to `frames` interleaved 16-bit frames; returns the frames read, 0 at the end.
    func readInt16(into buffer: UnsafeMutablePointer<Int16>, frames: Int) throws -> Int
    /// Moves to `frame` (clamped to the file), sample-accurately.
    func seek(toFrame frame: Int64) throws
    /// The file's tags.
    func readTags() -> VorbisComments.Reading
    /// Frees the C handle; later reads throw.
    func close()
}

extension AudioDecoder {
    /// Reads up to `frames` frames into `samples`, resizing it to exactly the frames read.
    package func read(frames: Int, into samples: inout [Float]) throws -> Int {
        let count = frames * channelCount
        if samples.count < count { samples = [Float](repeating: 0, count: count) }
        let n = try samples.withUnsafeMutableBufferPointer { try readFloats(into: $0.baseAddress!, frames: frames) }
        samples.removeLast(samples.count - n * channelCount)
        return n
    }

    /// Reads up to `frames` 16-bit frames into `samples`, resizing it to exactly the frames read.
    package func read(frames: Int, into samples: inout [Int16]) throws -> Int {
        let count = frames * channelCount
        if samples.count < count { samples = [Int16](repeating: 0, count: count) }
        let n = try samples.withUnsafeMutableBufferPointer { try readInt16(into: $0.baseAddress!, frames: frames) }
        samples.removeLast(samples.count - n * channelCount)
        return n
    }

    /// The file's PCM shape at its native rate and channel count, interleaved.
    var nativeFormat: AudioFormat {
        AudioFormat(sampleRate: sampleRate, channelCount: channelCount, commonFormat: nativeCommonFormat)
    }
}

/// Opens the right decoder for a file or any other byte source.
package enum AudioDecoders {
    /// Checks the file and opens it as an ``AudioFileSource`` (see ``open(_:)-(ByteSourceReader)``).
    package static func open(_ url: URL) throws -> any AudioDecoder {
        try open(ByteSourceReader(source: AudioFileSource(url: url), url: url))
    }

    /// Opens the decoder that `asset`'s bytes need, reading through its byte source.
    package static func open(_ asset: AudioAsset) throws -> any AudioDecoder {
        try open(asset.byteSourceReader())
    }

    /// Sniffs the first bytes, checks the container's ends, and opens Ogg
    /// Vorbis with vorbisfile and everything else with libsndfile, both
    /// reading through `source`.
    package static func open(_ source: ByteSourceReader) throws -> any AudioDecoder {
        let probe = try ContainerProbe(source: source)
        let url = source.url
        switch probe.kind {
        case .oggVorbis:
            try probe.checkOggEnd()
            return try VorbisDecoder(source: source)
        case .ogg(let codec):
            try probe.checkOggEnd()
            guard codec == "Opus" || codec == "FLAC" else {
                throw BackbeatError(
                    .unsupportedCodec, operation: "open", url: url, reason: "Ogg stream of \(codec) is not supported")
            }
            return try SndfileDecoder(source: source)
        case .wave:
            try probe.checkWave()
            return try SndfileDecoder(source: source)
        case .flac, .other:
            return try SndfileDecoder(source: source)
        }
    }
}
