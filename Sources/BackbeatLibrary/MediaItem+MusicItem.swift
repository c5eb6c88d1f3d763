import BackbeatMedia
import BackbeatMusic

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A library item plays in the ``MusicPlayer``: its file, its tags, its artwork.
extension MediaItem: MusicItem {
    /// The item's file as an asset.
    public var asset: AudioAsset { AudioAsset(url: assetURL) }

    /// The artwork's encoded bytes (JPEG or PNG), read from the file or the
    /// image beside it; nil without artwork or when it has gone since the scan.
    public func artworkImageData() -> Data? {
        (try? artwork?.encodedData())??.data
    }
}
