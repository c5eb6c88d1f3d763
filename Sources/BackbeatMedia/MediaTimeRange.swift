/// A span of media time: a start and a duration, like `CMTimeRange`.
public struct MediaTimeRange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Where the range begins.
    public var start: MediaTime
    /// How long it lasts; never negative.
    public var duration: MediaTime

    /// A range from `start` lasting `duration` (negative durations become zero).
    ///
    /// - Parameters:
    ///   - start: Where the range begins.
    ///   - duration: Its length; negative counts as zero.
    public init(start: MediaTime, duration: MediaTime) {
        self.start = start
        self.duration = duration < .zero ? .zero : duration
    }

    /// A range from `start` up to (not including) `end`.
    ///
    /// - Parameters:
    ///   - start: Where the range begins.
    ///   - end: Where it stops (excluded); before `start` gives an empty range.
    public init(start: MediaTime, end: MediaTime) {
        self.init(start: start, duration: end - start)
    }

    /// The first instant after the range.
    public var end: MediaTime { start + duration }

    public var description: String { "[\(start), \(end))" }
}
