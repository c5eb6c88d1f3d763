import Backbeat

/// The grid quantized pad hits land on: beats of a tempo, counted from an
/// origin in engine time, divided into equal steps.
public struct BeatGrid: Sendable, Hashable {
    /// Beats per minute.
    public var beatsPerMinute: Int
    /// An engine time on which a beat falls (the now-playing song's start).
    public var origin: MediaTime
    /// Grid points per beat, at least 1.
    public var divisionsPerBeat: Int

    /// The tempo used when no song (or no BPM tag) gives one.
    public static let defaultBeatsPerMinute = 120

    /// A grid; a tempo outside 1...999 BPM is replaced by ``defaultBeatsPerMinute``.
    public init(beatsPerMinute: Int, origin: MediaTime, divisionsPerBeat: Int) {
        self.beatsPerMinute = (1...999).contains(beatsPerMinute) ? beatsPerMinute : Self.defaultBeatsPerMinute
        self.origin = origin
        self.divisionsPerBeat = max(1, divisionsPerBeat)
    }

    /// The first grid point at or after `time`, on a frame at `sampleRate`.
    ///
    /// Computed in whole frames, with the step as the exact fraction
    /// `sampleRate * 60 / (bpm * divisions)`, so points never drift.
    public func nextPoint(atOrAfter time: MediaTime, sampleRate: Int) -> MediaTime {
        let now = time.frames(atSampleRate: sampleRate, rounding: .nearest)
        let start = origin.frames(atSampleRate: sampleRate, rounding: .nearest)
        let numerator = Int64(sampleRate) * 60
        let denominator = Int64(beatsPerMinute * divisionsPerBeat)
        // Point k is at start + floor(k * numerator / denominator).
        let elapsed = now - start
        var k = elapsed >= 0 ? (elapsed * denominator) / numerator : -((-elapsed * denominator) / numerator)
        func point(_ k: Int64) -> Int64 {
            let scaled = k * numerator
            return start + (scaled >= 0 ? scaled / denominator : -((-scaled + denominator - 1) / denominator))
        }
        while point(k) < now { k += 1 }
        while point(k - 1) >= now { k -= 1 }
        return MediaTime(frames: point(k), sampleRate: sampleRate)
    }
}
