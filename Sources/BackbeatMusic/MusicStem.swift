import BackbeatMedia

/// One stem of a section: a file played sample-locked with the section's other stems.
public struct MusicStem: Sendable {
    /// The layer the stem belongs to; ``AdaptiveMusicPlayer/setLayerGain(_:to:duration:)`` sets its level.
    public var layer: String
    /// The stem's file (its loop points and ``AudioAsset/looping`` are honoured).
    public var asset: AudioAsset

    /// A stem of `layer`.
    ///
    /// - Parameters:
    ///   - layer: The layer the stem belongs to.
    ///   - asset: The stem's file.
    public init(layer: String, asset: AudioAsset) {
        self.layer = layer
        self.asset = asset
    }
}
