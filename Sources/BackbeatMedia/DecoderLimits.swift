import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a decoder reports about a file is bounded before Backbeat uses it:
/// a crafted header can claim any sample rate, channel count or length.
enum DecoderLimits {
    /// Sample rates Backbeat accepts, in hertz.
    static let sampleRates = 1...768_000
    /// Channels Backbeat accepts.
    static let channelCounts = 1...64
    /// The most frames one byte of a file can hold: a generous bound (a
    /// Vorbis packet of one byte can stand for 4,096 frames of silence).
    static let framesPerByte: Int64 = 8_192

    /// Throws ``BackbeatError/Code/corruptFile`` unless the format is within bounds and
    /// `frames` is one `size` bytes can hold.
    static func check(sampleRate: Int, channels: Int, frames: Int64, size: Int64, url: URL, operation: String) throws {
        guard sampleRates.contains(sampleRate), channelCounts.contains(channels) else {
            throw BackbeatError(
                .corruptFile, operation: operation, url: url,
                reason: "invalid format (\(sampleRate) Hz, \(channels) channels)")
        }
        if frames / framesPerByte > size {
            throw BackbeatError(
                .corruptFile, operation: operation, url: url,
                reason: "claims \(frames) frames, more than a file of \(size) bytes can hold")
        }
    }
}
