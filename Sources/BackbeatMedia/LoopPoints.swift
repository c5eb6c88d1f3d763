import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The loop region of a sound or a song: it plays its intro (the frames before
/// `start`) once, the region `start..<end` as many times as asked (see
/// ``Looping``), then its tail (the frames from `end`).
///
/// Positions are frames (samples per channel) at the file's own sample rate,
/// the convention of the `LOOPSTART` / `LOOPLENGTH` / `LOOPEND` Vorbis comments
/// that RPG Maker and many game tools write, so a seam is exact to the sample.
///
/// ```swift
/// let asset = AudioAsset(url: url, loopPoints: try LoopPoints(start: 96_000, length: 384_000))
/// ```
public struct LoopPoints: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The region's first frame.
    public let start: Int64
    /// The frame after the region's last one.
    public let end: Int64

    /// The region's length in frames.
    public var length: Int64 { end - start }

    /// The region `start..<end`.
    ///
    /// - Parameters:
    ///   - start: The loop's first frame, from 0.
    ///   - end: The frame after the loop's last, greater than `start`.
    /// - Throws: ``BackbeatError/Code/invalidLoopPoints`` when `start` is negative or `end` is not after `start`.
    public init(start: Int64, end: Int64) throws {
        guard start >= 0, end > start else {
            throw BackbeatError(
                .invalidLoopPoints, operation: "LoopPoints",
                reason: "start \(start) and end \(end) name no region (0 <= start < end)")
        }
        self.start = start
        self.end = end
    }

    /// The region of `length` frames from `start`.
    ///
    /// - Parameters:
    ///   - start: The loop's first frame, from 0.
    ///   - length: The loop's length in frames, at least 1.
    /// - Throws: ``BackbeatError/Code/invalidLoopPoints`` when `start` is negative, `length` is not positive, or the end overflows.
    public init(start: Int64, length: Int64) throws {
        let (end, overflow) = start.addingReportingOverflow(length)
        guard !overflow, length > 0 else {
            throw BackbeatError(
                .invalidLoopPoints, operation: "LoopPoints",
                reason: "start \(start) and length \(length) name no region (length > 0)")
        }
        try self.init(start: start, end: end)
    }

    /// `start..<end` in frames.
    public var description: String { "\(start)..<\(end)" }

    /// These loop points fitted to a sound of `frameCount` frames: an end past
    /// the sound's end is moved to the end (tools often overshoot by a few
    /// samples); a start at or past the end names no region (nil).
    ///
    /// - Parameter frameCount: The sound's length in frames.
    /// - Returns: The fitted loop points, or nil when none fit.
    public func clamped(toFrameCount frameCount: Int64) -> LoopPoints? {
        guard start < frameCount else { return nil }
        return try? LoopPoints(start: start, end: min(end, frameCount))
    }

    /// These loop points checked against a sound of `frameCount` frames, for loop points set through the API.
    ///
    /// - Throws: ``BackbeatError/Code/invalidLoopPoints`` when the region does not start inside the sound.
    package func checked(frameCount: Int64, url: URL?) throws -> LoopPoints {
        guard let fitted = clamped(toFrameCount: frameCount) else {
            throw BackbeatError(
                .invalidLoopPoints, operation: "loop", url: url,
                reason: "loop start \(start) is not before the sound's end (\(frameCount) frames)")
        }
        return fitted
    }

    /// The loop points the `LOOPSTART` with `LOOPLENGTH` (or `LOOPEND`, exclusive)
    /// comments name, or nil. The rule: each value must be a whole number of at
    /// most 15 digits (else that tag is ignored); LOOPLENGTH wins over LOOPEND
    /// when both are present; a length of 0 or an end not after the start is
    /// ignored. Without LOOPSTART there is no loop. Fitting to the file (an end
    /// past the file's end) is done where the file's length is known.
    static func fromComments(start: String?, length: String?, end: String?) -> LoopPoints? {
        func frames(_ s: String?) -> Int64? {
            guard let s, !s.isEmpty, s.count <= 15, s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int64(s)
        }
        guard let start = frames(start) else { return nil }
        if let length = frames(length) { return try? LoopPoints(start: start, length: length) }
        if let end = frames(end) { return try? LoopPoints(start: start, end: end) }
        return nil
    }
}
