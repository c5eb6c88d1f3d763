import BackbeatSupport

/// Decoded audio in memory: samples in an ``AudioFormat``, stamped with the
/// time of its first frame.
public struct PCMBuffer: Sendable, Equatable {
    /// The samples, as their format's type.
    public enum Samples: Sendable, Equatable {
        case float32([Float])
        case int16([Int16])
    }

    /// The format of ``samples``.
    public let format: AudioFormat
    /// The samples: `frameCount * channelCount` of them, laid out as the format says.
    public private(set) var samples: Samples
    /// The time of the first frame in the source it came from.
    public var presentationTime: MediaTime

    /// Creates a buffer of Float32 samples; the count must be a multiple of the channel count.
    ///
    /// - Parameters:
    ///   - format: The samples' format; its `commonFormat` must be `.float32`.
    ///   - floats: The samples, interleaved or planar as `format` says.
    ///   - presentationTime: The first frame's time in the source it came from.
    /// - Throws: ``BackbeatError/Code/invalidArgument`` for an invalid or mismatched format or a partial frame.
    public init(format: AudioFormat, floats: [Float], presentationTime: MediaTime = .zero) throws {
        try format.validate(operation: "PCMBuffer")
        guard format.commonFormat == .float32, floats.count % format.channelCount == 0 else {
            throw BackbeatError(
                .invalidArgument, operation: "PCMBuffer",
                reason:
                    "\(floats.count) samples do not fill \(format.channelCount)-channel \(format.commonFormat.rawValue) frames"
            )
        }
        self.format = format
        self.samples = .float32(floats)
        self.presentationTime = presentationTime
    }

    /// Creates a buffer of Int16 samples; the count must be a multiple of the channel count.
    ///
    /// - Parameters:
    ///   - format: The samples' format; its `commonFormat` must be `.int16`.
    ///   - int16s: The samples, interleaved or planar as `format` says.
    ///   - presentationTime: The first frame's time in the source it came from.
    /// - Throws: ``BackbeatError/Code/invalidArgument`` for an invalid or mismatched format or a partial frame.
    public init(format: AudioFormat, int16s: [Int16], presentationTime: MediaTime = .zero) throws {
        try format.validate(operation: "PCMBuffer")
        guard format.commonFormat == .int16, int16s.count % format.channelCount == 0 else {
            throw BackbeatError(
                .invalidArgument, operation: "PCMBuffer",
                reason:
                    "\(int16s.count) samples do not fill \(format.channelCount)-channel \(format.commonFormat.rawValue) frames"
            )
        }
        self.format = format
        self.samples = .int16(int16s)
        self.presentationTime = presentationTime
    }

    /// Frames in the buffer.
    public var frameCount: Int {
        switch samples {
        case .float32(let s): s.count / format.channelCount
        case .int16(let s): s.count / format.channelCount
        }
    }

    /// The buffer's length in time.
    public var duration: MediaTime { MediaTime(frames: Int64(frameCount), sampleRate: format.sampleRate) }

    /// The samples as interleaved Float32, converting when needed (Int16 maps to -1..<1).
    public var interleavedFloats: [Float] {
        let floats: [Float]
        switch samples {
        case .float32(let s): floats = s
        case .int16(let s): floats = s.map { Float($0) / 32768 }
        }
        return format.isInterleaved ? floats : Self.interleave(floats, channels: format.channelCount)
    }

    /// One channel's samples as Float32.
    ///
    /// - Parameter index: The channel, from 0 (left) to `channelCount - 1`.
    /// - Returns: Its samples, one per frame (Int16 maps to -1..<1).
    public func channel(_ index: Int) -> [Float] {
        let all = interleavedFloats
        let n = format.channelCount
        return stride(from: index, to: all.count, by: n).map { all[$0] }
    }

    static func interleave(_ planar: [Float], channels: Int) -> [Float] {
        let frames = planar.count / channels
        var out = [Float](repeating: 0, count: planar.count)
        for c in 0..<channels { for f in 0..<frames { out[f * channels + c] = planar[c * frames + f] } }
        return out
    }
}
