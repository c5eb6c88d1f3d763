/// An item's loudness, measured to EBU R128 by the library's background analysis.
public struct Loudness: Hashable, Sendable, Codable {
    /// Integrated loudness, in LUFS.
    public let integratedLUFS: Double
    /// True peak, in dBTP (0 is full scale).
    public let truePeakDBTP: Double

    /// Creates a measurement.
    ///
    /// - Parameters:
    ///   - integratedLUFS: The integrated loudness, in LUFS (EBU R 128).
    ///   - truePeakDBTP: The true peak, in dBTP.
    public init(integratedLUFS: Double, truePeakDBTP: Double) {
        self.integratedLUFS = integratedLUFS
        self.truePeakDBTP = truePeakDBTP
    }

    /// The gain, in dB, that brings the item to `targetLUFS` without pushing its
    /// true peak above `ceilingDBTP` (like iTunes Sound Check; a player applies it).
    ///
    /// - Parameters:
    ///   - targetLUFS: The loudness to reach, in LUFS.
    ///   - ceilingDBTP: The highest true peak allowed after the gain, in dBTP.
    /// - Returns: The gain in dB: negative lowers the item.
    public func normalizationGainDB(targetLUFS: Double = -16, ceilingDBTP: Double = -1) -> Double {
        guard integratedLUFS.isFinite else { return 0 }
        let wanted = targetLUFS - integratedLUFS
        let headroom = truePeakDBTP.isFinite ? ceilingDBTP - truePeakDBTP : wanted
        return min(wanted, max(headroom, min(wanted, 0)))
    }
}
