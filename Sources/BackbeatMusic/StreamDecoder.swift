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
import BackbeatSupport
import BackbeatMedia

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
    private let decoder: any AudioDecoder
    private var resampler: Resampler?
    private var source: [Float] = []
    private var mapped: [Float] = []
    private var finished = false
    /// Output frames produced since the last seek.
    private var produced: Int64 = 0
    /// The output frame the last seek went to.
    private var origin: Int64 = 0

    /// Opens `url`; throws the decoders' typed errors (missing, corrupt, unsupported).
    init(url: URL, sampleRate: Int) throws {
        self.url = url
        self.sampleRate = sampleRate
        decoder = try AudioDecoders.open(url)
        guard decoder.frameCount > 0 else {
            decoder.close()
            throw BackbeatError(.emptyFile, operation: "stream", url: url, reason: "no audio frames")
        }
        resampler = try makeResampler()
    }

    deinit { decoder.close() }

    private func makeResampler() throws -> Resampler? {
        decoder.sampleRate == sampleRate
            ? nil
            : try Resampler(from: decoder.sampleRate, to: sampleRate, channelCount: Self.channelCount)
    }

    /// The song's length in stream frames.
    var frameCount: Int64 {
        MediaTime(frames: decoder.frameCount, sampleRate: decoder.sampleRate).frames(
            atSampleRate: sampleRate, rounding: .nearest)
    }

    /// The stream frame the next chunk starts at.
    var position: Int64 { origin + produced }

    /// Moves to stream frame `frame` (clamped to the song), sample-accurately.
    func seek(toFrame frame: Int64) throws {
        let target = max(0, min(frame, frameCount))
        let sourceFrame = MediaTime(frames: target, sampleRate: sampleRate).frames(
            atSampleRate: decoder.sampleRate, rounding: .nearest)
        try decoder.seek(toFrame: sourceFrame)
        resampler = try makeResampler()
        origin = target
        produced = 0
        finished = false
    }

    /// The next chunk of about `frames` stream frames, interleaved stereo; empty at the end.
    func read(frames: Int) throws -> [Float] {
        while !finished {
            let want = resampler.map { max(64, Int(Double(frames) / $0.ratio)) } ?? frames
            let channels = decoder.channelCount
            if source.count < want * channels { source = [Float](repeating: 0, count: want * channels) }
            let n = try source.withUnsafeMutableBufferPointer {
                try decoder.readFloats(into: $0.baseAddress!, frames: want)
            }
            let atEnd = n < want
            if atEnd { finished = true }
            var floats: [Float]
            if channels == Self.channelCount {
                floats = Array(source[0..<n * channels])
            } else {
                if mapped.count < n * Self.channelCount { mapped = [Float](repeating: 0, count: n * Self.channelCount) }
                if n > 0 {
                    source.withUnsafeBufferPointer { src in
                        mapped.withUnsafeMutableBufferPointer { dst in
                            ChannelMap.apply(
                                src.baseAddress!, frames: n, from: channels, to: Self.channelCount,
                                into: dst.baseAddress!)
                        }
                    }
                }
                floats = Array(mapped[0..<n * Self.channelCount])
            }
            if let resampler {
                if floats.isEmpty {
                    var silence: Float = 0
                    floats = try resampler.process(&silence, frames: 0, endOfInput: atEnd)
                } else {
                    floats = try floats.withUnsafeBufferPointer {
                        try resampler.process($0.baseAddress!, frames: n, endOfInput: atEnd)
                    }
                }
            }
            if floats.isEmpty { continue }
            produced += Int64(floats.count / Self.channelCount)
            return floats
        }
        return []
    }
}
