import BackbeatMedia

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Measurements on rendered audio, for a game's tests: levels, the first and
/// last audible frames, clicks, onsets, and the level of one frequency.
///
/// Every function takes samples as ``AudioEngine/render(frames:)`` returns
/// them: Float32, interleaved when `channels` is more than one. Frames and
/// levels are plain numbers (a level is linear amplitude, 1.0 is full scale),
/// so a test states its expectation in the units it renders in.
///
/// ```swift
/// let samples = try engine.render(frames: 48_000)
/// let left = SampleAnalysis.channel(samples, 0, of: 2)
/// #expect(SampleAnalysis.level(of: left, atFrequency: 440, sampleRate: 48_000) > 0.3)
/// #expect(SampleAnalysis.maxJump(samples, channels: 2) < 0.05)   // no click
/// ```
public enum SampleAnalysis {
    /// One channel of interleaved samples.
    ///
    /// - Parameters:
    ///   - samples: interleaved samples.
    ///   - index: the channel, from 0.
    ///   - channels: channels in `samples`.
    public static func channel(_ samples: [Float], _ index: Int, of channels: Int) -> [Float] {
        stride(from: index, to: samples.count, by: channels).map { samples[$0] }
    }

    /// The largest absolute sample value (0 for no samples).
    ///
    /// - Parameter samples: Samples in -1...1, of any channel layout.
    /// - Returns: The peak, 0 or more.
    public static func peak(_ samples: some Collection<Float>) -> Float { samples.reduce(0) { max($0, abs($1)) } }

    /// The root mean square of the samples (0 for no samples).
    ///
    /// - Parameter samples: Samples in -1...1, of any channel layout.
    /// - Returns: The RMS level, 0 or more (a full-scale sine gives about 0.707).
    public static func rms(_ samples: some Collection<Float>) -> Float {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(Float(0)) { $0 + $1 * $1 } / Float(samples.count)).squareRoot()
    }

    /// Sign changes from negative to non-negative: a tone's cycles, for a rough pitch.
    ///
    /// - Parameter samples: Mono samples.
    /// - Returns: The number of rising crossings.
    public static func risingZeroCrossings(_ samples: some Collection<Float>) -> Int {
        var count = 0
        var previous: Float?
        for s in samples {
            if let p = previous, p < 0, s >= 0 { count += 1 }
            previous = s
        }
        return count
    }

    /// The frequency of a steady tone in mono `samples`, in Hz, from the
    /// median spacing of its rising zero crossings (each placed between its
    /// two samples by linear interpolation); nil with fewer than three.
    ///
    /// The median makes a recording's brief dropout (a real-time device that
    /// missed a few milliseconds on a busy machine) cost nothing, where
    /// counting crossings over the whole span would read it as a lower pitch.
    ///
    /// - Parameters:
    ///   - samples: Mono samples of one steady tone.
    ///   - sampleRate: Their rate, in Hz.
    /// - Returns: The tone's frequency in Hz, or nil.
    public static func zeroCrossingFrequency(_ samples: [Float], sampleRate: Int) -> Double? {
        var crossings: [Double] = []
        for i in samples.indices.dropFirst() where samples[i - 1] < 0 && samples[i] >= 0 {
            let a = Double(samples[i - 1])
            let b = Double(samples[i])
            crossings.append(Double(i - 1) + (b - a > 0 ? -a / (b - a) : 0))
        }
        guard crossings.count >= 3 else { return nil }
        let spacings = zip(crossings.dropFirst(), crossings).map { $0 - $1 }.sorted()
        let median = spacings[spacings.count / 2]
        return median > 0 ? Double(sampleRate) / median : nil
    }

    /// The first frame in which any channel's |sample| exceeds `threshold`, or nil.
    ///
    /// - Parameters:
    ///   - samples: interleaved samples.
    ///   - channels: channels in `samples`.
    ///   - threshold: the level that counts as audible (default -80 dBFS).
    public static func firstAudibleFrame(_ samples: [Float], channels: Int, threshold: Float = 1e-4) -> Int? {
        var i = 0
        while i < samples.count {
            for c in 0..<channels where abs(samples[i + c]) > threshold { return i / channels }
            i += channels
        }
        return nil
    }

    /// The last frame in which any channel's |sample| exceeds `threshold`, or nil.
    ///
    /// - Parameters:
    ///   - samples: interleaved samples.
    ///   - channels: channels in `samples`.
    ///   - threshold: the level that counts as audible (default -80 dBFS).
    public static func lastAudibleFrame(_ samples: [Float], channels: Int, threshold: Float = 1e-4) -> Int? {
        var frame = samples.count / channels - 1
        while frame >= 0 {
            for c in 0..<channels where abs(samples[frame * channels + c]) > threshold { return frame }
            frame -= 1
        }
        return nil
    }

    /// The largest sample-to-sample difference within any channel: a click
    /// shows as a jump far above what the signal's own slope gives.
    ///
    /// - Parameters:
    ///   - samples: interleaved samples.
    ///   - channels: channels in `samples`.
    public static func maxJump(_ samples: [Float], channels: Int) -> Float {
        var jump: Float = 0
        var i = channels
        while i < samples.count {
            jump = max(jump, abs(samples[i] - samples[i - channels]))
            i += 1
        }
        return jump
    }

    /// Frames where a sound starts: the frame at which the level (the loudest
    /// channel's |sample|) first exceeds `threshold` after at least
    /// `minimumGap` frames at or below it (the first audible frame counts).
    ///
    /// - Parameters:
    ///   - samples: interleaved samples.
    ///   - channels: channels in `samples`.
    ///   - threshold: the level that counts as sound (default -40 dBFS).
    ///   - minimumGap: quiet frames that separate two onsets, so a tone's own
    ///     zero crossings do not count (default 64).
    public static func onsetFrames(
        _ samples: [Float], channels: Int, threshold: Float = 0.01,
        minimumGap: Int = 64
    ) -> [Int] {
        var onsets: [Int] = []
        var quiet = Int.max
        var frame = 0
        var i = 0
        while i + channels <= samples.count {
            var level: Float = 0
            for c in 0..<channels { level = max(level, abs(samples[i + c])) }
            if level > threshold {
                if quiet >= minimumGap { onsets.append(frame) }
                quiet = 0
            } else if quiet < Int.max {
                quiet += 1
            }
            frame += 1
            i += channels
        }
        return onsets
    }

    /// Frames where hits start in one channel: the frame at which that
    /// channel's |sample| first exceeds `threshold`, then nothing for
    /// `holdOff` frames (a hit's own ring, or a bed under it, is not a new
    /// hit). For recordings of separate hits, where the quiet between them
    /// is not silent enough for ``onsetFrames(_:channels:threshold:minimumGap:)``.
    ///
    /// - Parameters:
    ///   - samples: Interleaved samples.
    ///   - channel: The channel to read, from 0.
    ///   - channels: Samples per frame.
    ///   - threshold: The absolute level a hit must cross.
    ///   - holdOff: Frames after a hit's start before another can start.
    /// - Returns: The hits' first frames, in order.
    public static func hitFrames(
        _ samples: [Float], channel: Int = 0, of channels: Int, threshold: Float, holdOff: Int
    ) -> [Int] {
        precondition(channels > 0 && (0..<channels).contains(channel) && holdOff >= 0)
        var hits: [Int] = []
        var frame = 0
        while channels * frame + channel < samples.count {
            if abs(samples[channels * frame + channel]) > threshold {
                hits.append(frame)
                frame += max(1, holdOff)
            } else {
                frame += 1
            }
        }
        return hits
    }

    /// ``onsetFrames(_:channels:threshold:minimumGap:)`` as engine times at `sampleRate`.
    ///
    /// - Parameters:
    ///   - samples: Interleaved samples.
    ///   - channels: Samples per frame.
    ///   - sampleRate: Their rate, in Hz: the times' timescale.
    ///   - threshold: The absolute level an onset must cross.
    ///   - minimumGap: Frames after an onset before another counts.
    /// - Returns: The onsets' times from the first sample, in order.
    public static func onsetTimes(
        _ samples: [Float], channels: Int, sampleRate: Int, threshold: Float = 0.01,
        minimumGap: Int = 64
    ) -> [MediaTime] {
        onsetFrames(samples, channels: channels, threshold: threshold, minimumGap: minimumGap)
            .map { MediaTime(frames: Int64($0), sampleRate: sampleRate) }
    }

    /// The amplitude of the `frequency` component of one channel (Goertzel):
    /// a sine of amplitude `a` at that frequency measures about `a`, other
    /// frequencies far less. Use a whole number of the tone's cycles, or a
    /// few hundred of them, for a sharp reading.
    ///
    /// - Parameters:
    ///   - samples: one channel (see ``channel(_:_:of:)``).
    ///   - frequency: in Hz, below half of `sampleRate`.
    ///   - sampleRate: the samples' rate in Hz.
    public static func level(of samples: [Float], atFrequency frequency: Double, sampleRate: Int) -> Float {
        guard !samples.isEmpty, sampleRate > 0 else { return 0 }
        let omega = 2 * Double.pi * frequency / Double(sampleRate)
        let coefficient = 2 * cos(omega)
        var s1 = 0.0
        var s2 = 0.0
        for sample in samples {
            let s0 = Double(sample) + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
        return Float(2 * max(0, power).squareRoot() / Double(samples.count))
    }

    /// The strongest component of one channel within `band`: the largest
    /// ``level(of:atFrequency:sampleRate:)`` over the band, probed at the
    /// analysis resolution (`sampleRate / samples.count` Hz).
    ///
    /// - Parameters:
    ///   - samples: one channel.
    ///   - band: low and high frequency in Hz.
    ///   - sampleRate: the samples' rate in Hz.
    public static func level(of samples: [Float], inBand band: ClosedRange<Double>, sampleRate: Int) -> Float {
        guard !samples.isEmpty, sampleRate > 0 else { return 0 }
        let step = max(1, Double(sampleRate) / Double(samples.count))
        var best: Float = 0
        var frequency = band.lowerBound
        while frequency <= band.upperBound {
            best = max(best, level(of: samples, atFrequency: frequency, sampleRate: sampleRate))
            frequency += step
        }
        return max(best, level(of: samples, atFrequency: band.upperBound, sampleRate: sampleRate))
    }
}

extension SampleAnalysis {
    /// The lag, in frames, at which `b` best matches `a` (b[i + lag] ≈ a[i]):
    /// positive when `b` is a delayed copy of `a`. Searches -maximumLag...maximumLag.
    ///
    /// - Parameters:
    ///   - a: The reference signal (one channel).
    ///   - b: The signal to line up with it (one channel).
    ///   - maximumLag: The largest lag tried either way (negative counts as 0).
    public static func crossCorrelationLag(_ a: [Float], _ b: [Float], maximumLag: Int) -> Int {
        let limit = max(0, maximumLag)
        var best = 0
        var bestScore = -Double.infinity
        for lag in -limit...limit {
            var sum = 0.0
            for i in 0..<a.count where i + lag >= 0 && i + lag < b.count {
                sum += Double(a[i]) * Double(b[i + lag])
            }
            if sum > bestScore {
                bestScore = sum
                best = lag
            }
        }
        return best
    }
}
