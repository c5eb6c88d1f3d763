import BackbeatMedia

/// Interleaved Float32 samples with the channel count and rate they need to
/// be read: what ``SampleAnalysis/samples(contentsOf:)`` reads from a file,
/// in the units every ``SampleAnalysis`` function takes.
///
/// ```swift
/// let rendered = try SampleAnalysis.samples(contentsOf: wavURL)
/// #expect(SampleAnalysis.firstAudibleFrame(rendered.samples, channels: rendered.channels) == 4_800)
/// #expect(SampleAnalysis.rms(rendered.channel(1)) > SampleAnalysis.rms(rendered.channel(0)))
/// ```
public struct AudioSamples: Sendable, Equatable {
    /// The samples, interleaved when ``channels`` is more than one.
    public var samples: [Float]
    /// Samples per frame.
    public var channels: Int
    /// Frames per second, in Hz.
    public var sampleRate: Int

    /// Samples as a render returns them.
    ///
    /// - Parameters:
    ///   - samples: Interleaved Float32 samples, a whole number of frames.
    ///   - channels: Samples per frame.
    ///   - sampleRate: Frames per second, in Hz.
    public init(samples: [Float], channels: Int, sampleRate: Int) {
        self.samples = samples
        self.channels = channels
        self.sampleRate = sampleRate
    }

    /// Frames held (0 with no channels).
    public var frameCount: Int { channels > 0 ? samples.count / channels : 0 }

    /// The length at ``sampleRate``.
    public var duration: MediaTime { MediaTime(frames: Int64(frameCount), sampleRate: sampleRate) }

    /// One channel's samples, one per frame.
    ///
    /// - Parameter index: The channel, from 0 (left).
    /// - Returns: Its samples, as ``SampleAnalysis/channel(_:_:of:)`` gives them.
    public func channel(_ index: Int) -> [Float] { SampleAnalysis.channel(samples, index, of: channels) }
}
