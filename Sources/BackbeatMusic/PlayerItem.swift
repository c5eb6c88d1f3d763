import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One song in a ``QueuePlayer``'s queue, like `AVPlayerItem`: an asset and
/// its status as the player found it.
///
/// An item belongs to at most one queue at a time. Its status starts as
/// ``Status-swift.enum/loading`` and becomes ``Status-swift.enum/readyToPlay``
/// when the player's decoder opens the file, or
/// ``Status-swift.enum/failed(_:)`` when it cannot (missing, corrupt or
/// unsupported file); a failed item is reported and skipped.
public final class PlayerItem: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// Where an item stands.
    public enum Status: Sendable, Equatable {
        /// Not opened yet.
        case loading
        /// Opened; it can play.
        case readyToPlay
        /// It could not be opened or read; the error names the file and the reason.
        case failed(BackbeatError)
    }

    /// The item's asset.
    public let asset: AudioAsset
    /// The file's name, as a monitor shows the item: worked out once, since
    /// a `URL` parses its path again on each `lastPathComponent`, and a
    /// monitor asks at every snapshot.
    package let fileName: String
    private let state = LockedValueBox<(status: Status, duration: MediaTime?)>((.loading, nil))
    /// The item's id in the capture that last saw it. Unchecked: read and
    /// written only under the engine lock of the player that queues it.
    nonisolated(unsafe) var captureTag = CaptureTag()

    /// An item for an asset.
    ///
    /// - Parameter asset: The song's asset (its loop points are honoured).
    public init(asset: AudioAsset) {
        self.asset = asset
        fileName = asset.url.lastPathComponent
    }

    /// An item for the file at `url`.
    ///
    /// - Parameter url: The song's file.
    public convenience init(url: URL) {
        self.init(asset: AudioAsset(url: url))
    }

    /// An item for an encoded song's bytes in memory.
    ///
    /// - Parameters:
    ///   - data: the encoded file's bytes (Ogg Vorbis, FLAC, WAV…); the player streams from them.
    ///   - name: what errors and descriptions call it, such as `theme.ogg`.
    public convenience init(data: Data, name: String) {
        self.init(asset: AudioAsset(data: data, name: name))
    }

    /// The item's file, or the name of its bytes (see ``AudioAsset/url``).
    public var url: URL { asset.url }

    /// Loading, ready or failed.
    public var status: Status { state.withLockedValue { $0.status } }

    /// The item's length, once it is ready; nil before.
    public var duration: MediaTime? { state.withLockedValue { $0.duration } }

    /// The error that made it fail, if it did.
    public var error: BackbeatError? {
        if case .failed(let error) = status { return error }
        return nil
    }

    func markReady(frameCount: Int64, sampleRate: Int) {
        state.withLockedValue { $0 = (.readyToPlay, MediaTime(frames: frameCount, sampleRate: sampleRate)) }
    }

    func markFailed(_ error: BackbeatError) {
        state.withLockedValue { $0.status = .failed(error) }
    }

    public var description: String { "PlayerItem(\(url.lastPathComponent))" }

    /// Whether two items are the same item (items are compared by identity, not by file).
    ///
    /// - Parameters:
    ///   - a: One item.
    ///   - b: The other.
    /// - Returns: Whether they are one item.
    public static func == (a: PlayerItem, b: PlayerItem) -> Bool { a === b }

    /// Hashes the item's identity.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
