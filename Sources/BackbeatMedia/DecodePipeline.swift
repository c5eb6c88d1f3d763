/// The one decode pipeline: a decoder's audio, channel-mapped and resampled
/// to interleaved Float32 with `channelCount` channels at `sampleRate`, a
/// chunk at a time. The asset reader (``AssetReader``, through its read
/// pipeline, which adds time ranges, sample types and layouts) and streaming
/// (the music players' stream decoder, which adds stream positions) both
/// decode through it, so a file comes out with the same samples either way.
///
/// Scratch buffers are reused across calls. Used by one thread at a time.
package final class DecodePipeline {
    package let decoder: any AudioDecoder
    /// The output's rate and channel count.
    package let sampleRate: Int
    package let channelCount: Int
    private var resampler: Resampler?
    private var source: [Float] = []
    private var mapped: [Float] = []
    /// A loop region (in source frames) the pipeline plays through: at its end
    /// the decoder goes back to its start, ahead of the reader, while the
    /// resampler carries on, so the seam is as continuous as the sound.
    package struct Loop: Sendable {
        package var points: LoopPoints
        /// Returns to the start still to come; nil for forever.
        package var wrapsLeft: Int?

        /// A region played as `looping` says: `.once` straight through, `.times(n)` n times, `.forever`.
        package init(points: LoopPoints, looping: Looping) {
            self.points = points
            let extra = looping.extraPlays
            wrapsLeft = extra < 0 ? nil : extra
        }
    }
    /// The loop region, if any. A seek does not reset it; a seek past its end plays the tail.
    package var loop: Loop?
    /// Whether the decoder reached its end (the last chunk, with the resampler's tail, is out).
    package private(set) var isFinished = false

    /// A pipeline from `decoder` to `channelCount` channels at `sampleRate`.
    ///
    /// - Throws: ``BackbeatError/Code/unsupportedFormat`` when the rates cannot be converted.
    package init(decoder: any AudioDecoder, sampleRate: Int, channelCount: Int) throws {
        self.decoder = decoder
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        resampler = try Self.makeResampler(from: decoder.sampleRate, to: sampleRate, channelCount: channelCount)
    }

    private static func makeResampler(from source: Int, to target: Int, channelCount: Int) throws -> Resampler? {
        source == target ? nil : try Resampler(from: source, to: target, channelCount: channelCount)
    }

    /// Output frames per source frame, when the pipeline resamples.
    package var resamplingRatio: Double? { resampler?.ratio }

    /// Moves the decoder to source frame `frame` and starts resampling afresh from there.
    package func seek(toSourceFrame frame: Int64) throws {
        try decoder.seek(toFrame: frame)
        resampler = try Self.makeResampler(from: decoder.sampleRate, to: sampleRate, channelCount: channelCount)
        isFinished = false
    }

    /// Decodes up to `want` source frames (zero: the end is here) and returns
    /// them channel-mapped and resampled, interleaved, with the number of
    /// source frames read. The resampler holds some frames back, so a chunk
    /// may be empty before the end; at the end it gives out the rest and
    /// ``isFinished`` turns true.
    package func decode(sourceFrames wanted: Int) throws -> (floats: [Float], sourceFrames: Int) {
        var want = wanted
        if var loop, loop.wrapsLeft != 0, want > 0 {
            if decoder.position == loop.points.end {
                try decoder.seek(toFrame: loop.points.start)
                if let w = loop.wrapsLeft { loop.wrapsLeft = w - 1 }
                self.loop = loop
            }
            let position = decoder.position
            if loop.wrapsLeft != 0, position < loop.points.end {
                want = Int(min(Int64(want), loop.points.end - position))
            }
        }
        let channels = decoder.channelCount
        if source.count < want * channels { source = [Float](repeating: 0, count: want * channels) }
        let n =
            want == 0
            ? 0
            : try source.withUnsafeMutableBufferPointer {
                try decoder.readFloats(into: $0.baseAddress!, frames: want)
            }
        let atEnd = n < want || n == 0
        if atEnd { isFinished = true }

        // Channels.
        var floats: [Float]
        if channels == channelCount || n == 0 {
            floats = Array(source[0..<n * channels])
        } else {
            if mapped.count < n * channelCount { mapped = [Float](repeating: 0, count: n * channelCount) }
            source.withUnsafeBufferPointer { src in
                mapped.withUnsafeMutableBufferPointer { dst in
                    ChannelMap.apply(
                        src.baseAddress!, frames: n, from: channels, to: channelCount, into: dst.baseAddress!)
                }
            }
            floats = Array(mapped[0..<n * channelCount])
        }

        // Rate.
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
        return (floats, n)
    }
}
