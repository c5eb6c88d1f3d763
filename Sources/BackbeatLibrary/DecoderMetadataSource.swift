import BackbeatMedia
import BackbeatSupport
import Foundation

/// The scanner's tag source: the Media layer's decoders (vorbisfile for Ogg
/// Vorbis, libsndfile for the rest) and their ``AudioTags``.
struct DecoderMetadataSource: MediaMetadataSource {
    static let extensions: Set<String> = [
        "ogg", "oga", "opus", "wav", "wave", "aif", "aiff", "aifc", "flac", "caf", "mp3", "w64", "au",
    ]

    func handles(pathExtension: String) -> Bool { Self.extensions.contains(pathExtension) }

    func metadata(for url: URL) throws -> ScannedMetadata {
        let decoder = try AudioDecoders.open(url)
        defer { decoder.close() }
        guard decoder.sampleRate > 0, decoder.channelCount > 0 else {
            throw BackbeatError(.unreadableFile, operation: "open", url: url, reason: "no audio stream")
        }
        let reading = decoder.readTags()
        return ScannedMetadata(
            tags: reading.tags,
            duration: MediaTime(frames: max(0, decoder.frameCount), sampleRate: decoder.sampleRate),
            artworkErrors: reading.artworkErrors)
    }

    func decode(_ url: URL, body: (AudioFormat, [Float]) throws -> Bool) throws {
        let decoder = try AudioDecoders.open(url)
        defer { decoder.close() }
        let format = AudioFormat(sampleRate: decoder.sampleRate, channelCount: decoder.channelCount)
        var chunk: [Float] = []
        while try decoder.read(frames: 4096, into: &chunk) > 0 {
            guard try body(format, chunk) else { return }
        }
    }
}
