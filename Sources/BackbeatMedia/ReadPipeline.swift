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

/// The asset reader's side of the decode pipeline: a time range, then
/// ``DecodePipeline`` (decoder → channel map → resampler), then the sample
/// type and layout asked for. One buffer at a time.
final class ReadPipeline {
    let decoder: any AudioDecoder
    let output: AudioFormat
    private let pipeline: DecodePipeline
    private let startFrame: Int64
    private let endFrame: Int64
    /// Where reading stops: the range's end, or never before the decoder's end when there is no range
    /// (so an estimated frame count, as for MP3, cannot cut the song short).
    private let stopFrame: Int64
    private let outputStartFrame: Int64
    private var emitted: Int64 = 0
    private var finished = false

    /// Source frames read so far (for progress).
    private(set) var sourceFramesRead: Int64 = 0
    /// Source frames the range covers.
    var sourceFramesTotal: Int64 { endFrame - startFrame }

    init(decoder: any AudioDecoder, output: AudioFormat, timeRange: MediaTimeRange?) throws {
        self.decoder = decoder
        self.output = output
        let rate = decoder.sampleRate
        if let range = timeRange {
            let start = max(0, min(range.start.frames(atSampleRate: rate, rounding: .nearest), decoder.frameCount))
            let end = max(start, min(range.end.frames(atSampleRate: rate, rounding: .nearest), decoder.frameCount))
            startFrame = start
            endFrame = end
            stopFrame = end
            if start > 0 { try decoder.seek(toFrame: start) }
        } else {
            startFrame = 0
            endFrame = decoder.frameCount
            stopFrame = .max
        }
        outputStartFrame = MediaTime(frames: startFrame, sampleRate: rate).frames(
            atSampleRate: output.sampleRate, rounding: .nearest)
        pipeline = try DecodePipeline(
            decoder: decoder, sampleRate: output.sampleRate, channelCount: output.channelCount)
    }

    func close() { decoder.close() }

    /// The next buffer of about `frames` source frames, or nil at the end.
    func next(frames: Int) throws -> PCMBuffer? {
        while !finished {
            let remaining = stopFrame == .max ? Int64.max : stopFrame - startFrame - sourceFramesRead
            let want = Int(min(Int64(frames), max(0, remaining)))
            let channels = decoder.channelCount

            // Fast path: the decoder's own 16-bit output is already what was asked for.
            if pipeline.resamplingRatio == nil, channels == output.channelCount, output.commonFormat == .int16,
                output.isInterleaved || channels == 1
            {
                var samples = [Int16](repeating: 0, count: want * channels)
                let n =
                    want == 0
                    ? 0
                    : try samples.withUnsafeMutableBufferPointer {
                        try decoder.readInt16(into: $0.baseAddress!, frames: want)
                    }
                sourceFramesRead += Int64(n)
                if n == 0 {
                    finished = true
                    return nil
                }
                if n < want { samples.removeLast((want - n) * channels) }
                return try stamp(int16s: samples, frames: n)
            }

            var (floats, n) = try pipeline.decode(sourceFrames: want)
            sourceFramesRead += Int64(n)
            let atEnd = pipeline.isFinished
            if atEnd { finished = true }
            let outChannels = output.channelCount
            let outFrames = floats.count / outChannels
            if outFrames == 0 { if atEnd { return nil } else { continue } }

            // Layout and type.
            if !output.isInterleaved && outChannels > 1 { floats = Self.deinterleave(floats, channels: outChannels) }
            switch output.commonFormat {
            case .float32: return try stamp(floats: floats, frames: outFrames)
            case .int16: return try stamp(int16s: Self.toInt16(floats), frames: outFrames)
            }
        }
        return nil
    }

    private func time() -> MediaTime { MediaTime(frames: outputStartFrame + emitted, sampleRate: output.sampleRate) }

    private func stamp(floats: [Float], frames: Int) throws -> PCMBuffer {
        defer { emitted += Int64(frames) }
        return try PCMBuffer(format: output, floats: floats, presentationTime: time())
    }

    private func stamp(int16s: [Int16], frames: Int) throws -> PCMBuffer {
        defer { emitted += Int64(frames) }
        return try PCMBuffer(format: output, int16s: int16s, presentationTime: time())
    }

    /// Float to 16-bit as libvorbis does it: scale by 32768, round to nearest even, clip.
    static func toInt16(_ floats: [Float]) -> [Int16] {
        [Int16](unsafeUninitializedCapacity: floats.count) { out, count in
            floats.withUnsafeBufferPointer { input in
                for i in 0..<input.count {
                    let v = (input[i] * 32768).rounded(.toNearestOrEven)
                    out[i] = v >= 32767 ? 32767 : (v <= -32768 ? -32768 : Int16(v))
                }
            }
            count = floats.count
        }
    }

    static func deinterleave(_ interleaved: [Float], channels: Int) -> [Float] {
        let frames = interleaved.count / channels
        var out = [Float](repeating: 0, count: interleaved.count)
        for f in 0..<frames { for c in 0..<channels { out[c * frames + f] = interleaved[f * channels + c] } }
        return out
    }
}
