/// An item's loudness, measured to EBU R128 by the library's background analysis.
public struct Loudness: Hashable, Sendable, Codable {
    /// Integrated loudness, in LUFS.
    public let integratedLUFS: Double
    /// True peak, in dBTP (0 is full scale).
    public let truePeakDBTP: Double

    /// Creates a measurement.
    public init(integratedLUFS: Double, truePeakDBTP: Double) {
        self.integratedLUFS = integratedLUFS
        self.truePeakDBTP = truePeakDBTP
    }

    /// The gain, in dB, that brings the item to `targetLUFS` without pushing its
    /// true peak above `ceilingDBTP` (like iTunes Sound Check; a player applies it).
    public func normalizationGainDB(targetLUFS: Double = -16, ceilingDBTP: Double = -1) -> Double {
        guard integratedLUFS.isFinite else { return 0 }
        let wanted = targetLUFS - integratedLUFS
        let headroom = truePeakDBTP.isFinite ? ceilingDBTP - truePeakDBTP : wanted
        return min(wanted, max(headroom, min(wanted, 0)))
    }
}
