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
    /// each at most 1. The shelves cannot lift, so the broadband gain is the
    /// loudest band's: where low is louder than mid (most walls), the mid
    /// band is heard at the low band's level, and the high band at its own.
    var filterGains: FilterGains {
        let loudest = max(low, mid, high, 0)
        guard loudest > 0 else { return FilterGains(gain: 0, gainLF: 1, gainHF: 1) }
        return FilterGains(gain: loudest, gainLF: low / loudest, gainHF: high / loudest)
    }
}
