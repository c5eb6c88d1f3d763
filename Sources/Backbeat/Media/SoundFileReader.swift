import CSndfile
import Foundation

/// Reads a whole (short) sound file into memory through libsndfile, which
/// also decodes Ogg Vorbis, FLAC and Opus. Sound effects use it; music
/// streams instead.
enum SoundFileReader {
    /// Decodes `url` to interleaved Float32.
    ///
    /// - Throws: ``BackbeatError`` naming the file: `.fileNotFound` when it is
    ///   missing, `.unreadableFile` when libsndfile cannot decode it,
    ///   `.emptySound` when it holds no frames.
    static func readAll(_ url: URL) throws -> PCMBuffer {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw BackbeatError(.fileNotFound, operation: "open", url: url)
        }
        var info = SF_INFO()
        guard let file = sf_open(url.path, Int32(SFM_READ), &info) else {
            throw BackbeatError(.unreadableFile, operation: "sf_open", url: url, reason: String(cString: sf_strerror(nil)))
        }
        defer { sf_close(file) }
        guard info.frames > 0 else { throw BackbeatError(.emptySound, operation: "read", url: url, reason: "no frames") }
        guard info.channels > 0, info.channels <= 8, info.samplerate > 0 else {
            throw BackbeatError(.unreadableFile, operation: "sf_open", url: url, reason: "\(info.channels) channels at \(info.samplerate) Hz")
        }
        let channels = Int(info.channels)
        var samples: [Float] = []
        var chunk = [Float](repeating: 0, count: 4_096 * channels)
        while true {
            let read = chunk.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, 4_096) }
            if read <= 0 { break }
            samples.append(contentsOf: chunk[0..<(Int(read) * channels)])
        }
        guard !samples.isEmpty else { throw BackbeatError(.emptySound, operation: "read", url: url, reason: "no frames decoded") }
        return try PCMBuffer(format: AudioFormat(sampleRate: Int(info.samplerate), channelCount: channels), floats: samples)
    }
}
