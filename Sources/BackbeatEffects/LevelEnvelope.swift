import BackbeatMedia

/// A decoded sound's level, block by block: for every ``blockFrames``
/// frames, the mean of the squared samples (over the block's frames and
/// channels) and the largest absolute sample.
///
/// A monitor's bus meters read it at each playing voice's position instead
/// of the samples themselves: the cache keeps no copy of a sound's PCM once
/// OpenAL has it, and reading a block's two numbers costs the same whatever
/// the window's length. Made once per load, off the engine lock (with the
/// decode), at 8 bytes per block: about 0.8% of a 16-bit stereo sound's
/// bytes, 0.4% of a float stereo one's.
final class LevelEnvelope: Sendable {
    /// Frames per block (5.3 ms at 48 kHz): a snapshot reads each block of
    /// its window once, so its cost goes with the window over this. A
    /// window's ends, rounded to blocks, move by under a block: a steady
    /// sound's level not at all; a sharp attack right at a 100 ms window's
    /// edge, by up to about 1 dB in that one window. 64-frame blocks moved
    /// it a quarter as much, for four times the reads on every snapshot.
    static let blockFrames = 256

    /// Per block, the mean of its squared samples over frames and channels.
    let meanSquares: [Float]
    /// Per block, its largest absolute sample.
    let peaks: [Float]
    /// The sound's frames.
    let frames: Int

    /// Measures `pcm` block by block.
    ///
    /// - Parameter pcm: the decoded sound (any channel count; Int16 reads as -1..<1).
    init(_ pcm: PCMBuffer) {
        let channels = max(1, pcm.format.channelCount)
        let samples = pcm.interleavedFloats
        let frames = samples.count / channels
        let blocks = (frames + Self.blockFrames - 1) / Self.blockFrames
        var meanSquares = [Float](repeating: 0, count: blocks)
        var peaks = [Float](repeating: 0, count: blocks)
        samples.withUnsafeBufferPointer { s in
            for block in 0..<blocks {
                let start = block * Self.blockFrames * channels
                let end = min(s.count, start + Self.blockFrames * channels)
                var sum: Float = 0
                var peak: Float = 0
                for i in start..<end {
                    let x = s[i]
                    sum += x * x
                    peak = max(peak, abs(x))
                }
                meanSquares[block] = end > start ? sum / Float(end - start) : 0
                peaks[block] = peak
            }
        }
        self.meanSquares = meanSquares
        self.peaks = peaks
        self.frames = frames
    }
}
