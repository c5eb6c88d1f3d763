import BackbeatMedia
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

/// Decodes one song into the stream format — interleaved stereo Float32 at the
/// engine's sample rate — a chunk at a time, with sample-accurate seeking.
///
/// Every item of a queue goes through one of these, so consecutive items of
/// different rates and channel counts share one OpenAL source queue: that is
/// what makes the queue gapless. Used by one thread at a time (the stream's
/// decode lock).
final class StreamDecoder {
    static let channelCount = 2

    let url: URL
    let sampleRate: Int
    /// Decode, channel map and resample: the asset reader's pipeline too.
    private let pipeline: DecodePipeline
    /// Output frames produced since the last seek.
    private var produced: Int64 = 0
    /// The output frame the last seek went to.
    private var origin: Int64 = 0

    /// The loop region honoured, in source frames (nil: none).
    var loopPoints: LoopPoints? { pipeline.loop?.points }

    /// Opens `asset`, which is then read lazily, a chunk at a time, through its
    /// byte source; throws the decoders' typed errors (missing, corrupt,
    /// unsupported, or loop points set through the API that start past the end).
    /// With `loop`, the decoder goes back to the loop start when it reaches the
    /// loop end (ahead of playback: the song is never decoded whole).
    init(asset: AudioAsset, sampleRate: Int, loop: StreamLoop? = nil) throws {
        let url = asset.url
        self.url = url
        self.sampleRate = sampleRate
        let decoder = try AudioDecoders.open(asset)
        guard decoder.frameCount > 0 else {
            decoder.close()
            throw BackbeatError(.emptyFile, operation: "stream", url: url, reason: "no audio frames")
        }
        do {
            pipeline = try DecodePipeline(decoder: decoder, sampleRate: sampleRate, channelCount: Self.channelCount)
            if let loop {
                let points =
                    try loop.points.map { try $0.checked(frameCount: decoder.frameCount, url: url) }
                    ?? decoder.readTags().tags.loopPoints?.clamped(toFrameCount: decoder.frameCount)
                if let points { pipeline.loop = DecodePipeline.Loop(points: points, looping: loop.looping) }
            }
        } catch {
            decoder.close()
            throw error
        }
    }

    deinit { pipeline.decoder.close() }

    /// The song's length in stream frames.
    var frameCount: Int64 {
        MediaTime(frames: pipeline.decoder.frameCount, sampleRate: pipeline.decoder.sampleRate).frames(
            atSampleRate: sampleRate, rounding: .nearest)
    }

    /// The stream frame the next chunk starts at.
    var position: Int64 { origin + produced }

    /// Moves to stream frame `frame` (clamped to the song), sample-accurately.
    func seek(toFrame frame: Int64) throws {
        let target = max(0, min(frame, frameCount))
        let sourceFrame = MediaTime(frames: target, sampleRate: sampleRate).frames(
            atSampleRate: pipeline.decoder.sampleRate, rounding: .nearest)
        try pipeline.seek(toSourceFrame: sourceFrame)
        origin = target
        produced = 0
    }

    /// The next chunk of about `frames` stream frames, interleaved stereo; empty at the end.
    func read(frames: Int) throws -> [Float] {
        while !pipeline.isFinished {
            let want = pipeline.resamplingRatio.map { max(64, Int(Double(frames) / $0)) } ?? frames
            let floats = try pipeline.decode(sourceFrames: want).floats
            if floats.isEmpty { continue }
            produced += Int64(floats.count / Self.channelCount)
            return floats
        }
        return []
    }
}
