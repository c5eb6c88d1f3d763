import BackbeatEffects
import BackbeatEngine
import BackbeatMedia

extension Voice {
    /// Makes the voice sound as ``AcousticScene/path(from:to:radius:)`` says
    /// the listener hears it: its band gains on the voice's direct path,
    /// through OpenAL's band-pass (in series with the voice's own filter,
    /// obstruction and occlusion), gliding over `duration`.
    ///
    /// While part of the sound comes around (``AcousticPath/diffraction``),
    /// the voice's source is heard from ``AcousticPath/direction`` (the last
    /// bend: a door, an edge) at the game's distance from the listener;
    /// otherwise from where the game put it.
    ///
    /// - Parameters:
    ///   - path: What the listener hears of the voice.
    ///   - duration: How long the change glides in engine time; nil for the de-zipper time.
    public func apply(_ path: AcousticPath, over duration: MediaTime? = nil) {
        setAcousticFilter(path.gains.filterGains, over: duration)
        setAcousticDirection(path.heardDirection)
    }
}

extension AcousticBands {
    /// The band gains as OpenAL's band-pass filter takes them: a broadband
    /// gain, times a low shelf below 250 Hz and a high shelf above 5 kHz,
    /// each at most 1. The shelves cannot lift, so where the low band is
    /// louder than the mid band (most walls, every edge) one of the two must
    /// be off: the broadband gain is their geometric mean, so each is off by
    /// half the difference (a thin screen's 6.5 dB between 400 Hz and
    /// 2.5 kHz gives 3.3 dB each), rather than the mid band by all of it
    /// (a concrete wall's 17.5 dB). The high band is heard at its own level.
    ///
    /// OpenAL Soft 1.19's shelves take their gain as the gain at the shelf's
    /// reference frequency (250 Hz, 5 kHz), halfway in decibels, and go on to
    /// its square beyond: a thin screen's high band, asked for at -10 dB
    /// below the broadband, was heard 9 dB further down. So each shelf is
    /// given the square root of the band's ratio, and the band is heard at
    /// its own level past the shelf.
    var filterGains: FilterGains {
        let loudest = max(low, mid, high, 0)
        guard loudest > 0 else { return FilterGains(gain: 0, gainLF: 1, gainHF: 1) }
        let middle = low > mid ? (low * mid).squareRoot() : mid
        let broadband = max(middle, high, 1e-9)
        return FilterGains(
            gain: broadband, gainLF: min(max(low, 0) / broadband, 1).squareRoot(),
            gainHF: min(max(high, 0) / broadband, 1).squareRoot())
    }
}
