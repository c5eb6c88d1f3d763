import BackbeatSupport

/// The shape of PCM audio: sample rate, channel count, sample type and layout.
public struct AudioFormat: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The type of one sample.
    public enum CommonFormat: String, Sendable, Hashable, Codable {
        /// 32-bit float, nominally in -1...1.
        case float32
        /// 16-bit signed integer.
        case int16
    }

    /// Frames per second.
    public var sampleRate: Int
    /// Channels per frame.
    public var channelCount: Int
    /// The sample type.
    public var commonFormat: CommonFormat
    /// Whether channels alternate within a frame (`LRLR...`) or come one after another.
    public var isInterleaved: Bool

    /// Creates a format; the defaults are interleaved Float32.
    ///
    /// - Parameters:
    ///   - sampleRate: Frames per second, in Hz.
    ///   - channelCount: Samples per frame (1 mono, 2 stereo).
    ///   - commonFormat: The sample type.
    ///   - isInterleaved: Whether a frame's samples sit together (true) or each channel is a block of its own.
    public init(sampleRate: Int, channelCount: Int, commonFormat: CommonFormat = .float32, isInterleaved: Bool = true) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.commonFormat = commonFormat
        self.isInterleaved = isInterleaved
    }

    /// Bytes per sample of one channel.
    public var bytesPerSample: Int { commonFormat == .float32 ? 4 : 2 }

    public var description: String {
        "\(sampleRate) Hz, \(channelCount) ch, \(commonFormat.rawValue)\(isInterleaved ? "" : ", planar")"
    }

    /// Throws unless the rate and channel count are usable.
    func validate(operation: String) throws {
        guard sampleRate > 0, sampleRate <= 768_000 else {
            throw BackbeatError(
                .invalidArgument, operation: operation, reason: "sample rate \(sampleRate) Hz is out of range")
        }
        guard channelCount > 0, channelCount <= 8 else {
            throw BackbeatError(
                .invalidArgument, operation: operation, reason: "channel count \(channelCount) is out of range")
        }
    }
}
