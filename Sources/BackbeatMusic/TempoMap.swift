import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A section's tempo and time signature: where its beats and bars fall, from
/// its first frame. From tags (`BPM` or `TEMPO`, and `TIMESIGNATURE` such as
/// `3/4`) or set in code.
public struct TempoMap: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Beats per minute (1 to 999; fractions allowed).
    public let beatsPerMinute: Double
    /// Beats in a bar: the time signature's upper number.
    public let beatsPerBar: Int
    /// The note value of a beat: the time signature's lower number (1, 2, 4, 8, 16 or 32).
    public let beatUnit: Int

    /// A tempo of `beatsPerMinute` in `beatsPerBar`/`beatUnit` time.
    ///
    /// - Parameters:
    ///   - beatsPerMinute: The tempo, 1...999 (fractions allowed).
    ///   - beatsPerBar: Beats in a bar, 1...64; 4 by default.
    ///   - beatUnit: The note value of a beat: 1, 2, 4, 8, 16 or 32; 4 by default.
    /// - Throws: ``BackbeatError/Code/invalidArgument`` for a tempo outside 1...999 (or not finite),
    ///   beats per bar outside 1...64, or a beat unit that is not a power of two up to 32.
    public init(beatsPerMinute: Double, beatsPerBar: Int = 4, beatUnit: Int = 4) throws {
        guard beatsPerMinute.isFinite, (1...999).contains(beatsPerMinute) else {
            throw BackbeatError(
                .invalidArgument, operation: "TempoMap", reason: "tempo \(beatsPerMinute) BPM (1 to 999)")
        }
        guard (1...64).contains(beatsPerBar), [1, 2, 4, 8, 16, 32].contains(beatUnit) else {
            throw BackbeatError(
                .invalidArgument, operation: "TempoMap",
                reason: "time signature \(beatsPerBar)/\(beatUnit) (1 to 64 beats of 1, 2, 4, 8, 16 or 32)")
        }
        self.beatsPerMinute = beatsPerMinute
        self.beatsPerBar = beatsPerBar
        self.beatUnit = beatUnit
    }

    /// The tempo a file's tags give (`BPM` or `TEMPO`, and `TIMESIGNATURE`,
    /// 4/4 when absent or unreadable), or nil without a usable tempo.
    ///
    /// - Parameter tags: The file's tags.
    public init?(tags: AudioTags) {
        guard let bpm = tags.beatsPerMinute else { return nil }
        var upper = 4
        var lower = 4
        if let signature = tags.timeSignature {
            let parts = signature.split(separator: "/").map { $0.filter { !$0.isWhitespace } }
            if parts.count == 2, parts.allSatisfy({ $0.count <= 2 }), let u = Int(parts[0]), let l = Int(parts[1]),
                (try? TempoMap(beatsPerMinute: 120, beatsPerBar: u, beatUnit: l)) != nil
            {
                upper = u
                lower = l
            }
        }
        guard let map = try? TempoMap(beatsPerMinute: Double(bpm), beatsPerBar: upper, beatUnit: lower) else {
            return nil
        }
        self = map
    }

    /// The length of one beat.
    public var beatDuration: MediaTime { MediaTime(seconds: 60 / beatsPerMinute, preferredTimescale: 1_000_000_000) }

    /// The length of one bar.
    public var barDuration: MediaTime { beatDuration * Int64(beatsPerBar) }

    /// `120 BPM 4/4`.
    public var description: String {
        let bpm = beatsPerMinute.rounded() == beatsPerMinute ? String(Int(beatsPerMinute)) : String(beatsPerMinute)
        return "\(bpm) BPM \(beatsPerBar)/\(beatUnit)"
    }

    /// The frame, from the section's first frame, where beat `beat` (0-based) starts, rounded to the nearest frame.
    package func frame(ofBeat beat: Int64, sampleRate: Int) -> Int64 {
        Int64((Double(beat) * 60 * Double(sampleRate) / beatsPerMinute).rounded())
    }

    /// The first frame at or after `elapsed` (frames from the section's first
    /// frame) on which a beat falls whose number is a multiple of `every` (1: beats; beatsPerBar: bars).
    package func nextFrame(atOrAfter elapsed: Int64, every: Int64, sampleRate: Int) -> Int64 {
        guard elapsed > 0 else { return 0 }
        let beats = Double(elapsed) * beatsPerMinute / (60 * Double(sampleRate))
        var n = Int64((beats / Double(every)).rounded(.down)) * every
        while frame(ofBeat: n, sampleRate: sampleRate) < elapsed { n += every }
        return frame(ofBeat: n, sampleRate: sampleRate)
    }
}
