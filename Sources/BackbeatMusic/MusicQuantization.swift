/// Where a change of section, or a stinger, starts.
public enum MusicQuantization: String, Sendable, Hashable, Codable, CaseIterable {
    /// As soon as the engine can start it exactly.
    case immediate
    /// On the current section's next beat.
    case beat
    /// On the current section's next bar line.
    case bar
    /// At the end of the current segment: the end of the loop's current pass (or of the file).
    case segmentEnd
}
