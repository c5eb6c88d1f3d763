import BackbeatMedia

/// A section of adaptive music: one or more stems (vertical layers) that
/// start together, sample-locked, and its tempo.
public struct MusicSection: Sendable {
    /// The name a game switches to it by.
    public var name: String
    /// The stems; the first one's length and loop points give the section's segments.
    public var stems: [MusicStem]
    /// The tempo; nil takes it from the first stem's tags (`BPM`/`TEMPO`, `TIMESIGNATURE`).
    public var tempo: TempoMap?

    /// A section of several stems.
    ///
    /// - Parameters:
    ///   - name: The name a game switches to it by.
    ///   - stems: The stems, started together; the first gives the section's segments.
    ///   - tempo: The tempo; nil takes it from the first stem's tags.
    public init(name: String, stems: [MusicStem], tempo: TempoMap? = nil) {
        self.name = name
        self.stems = stems
        self.tempo = tempo
    }

    /// A section of one file, on the layer `main`.
    ///
    /// - Parameters:
    ///   - name: The name a game switches to it by.
    ///   - asset: The section's file.
    ///   - tempo: The tempo; nil takes it from the file's tags.
    public init(name: String, asset: AudioAsset, tempo: TempoMap? = nil) {
        self.init(name: name, stems: [MusicStem(layer: "main", asset: asset)], tempo: tempo)
    }
}
