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
    /// gain, a low shelf at 250 Hz and a high shelf at 5 kHz, each at most 1
    /// (``BandFilterFit``). The shelves cannot lift and reach only partly
    /// into the bands, so where the low band is louder than the mid band
    /// (most walls, every edge) the bands cannot all be met: the settings
    /// make the largest error over the three bands' centres smallest, with
    /// the shelves' real response in OpenAL Soft 1.19 (the gain asked for
    /// at the corner, its square beyond).
    var filterGains: FilterGains { BandFilterFit.filter(for: self) }
}
