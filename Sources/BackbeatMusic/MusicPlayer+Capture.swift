import BackbeatCapture
import BackbeatEngine

// The application music player in a capture: declared by its id alone; its
// queue is recorded item by item with what a replay needs to play it.
extension MusicPlayer: CapturedMusicPlayer {
    func captureIDLocked() -> UInt32? {
        guard let engine = core.engine, engine.captureRecorder != nil else { return nil }
        if isDeclaredLocked { return captureTag.id }
        return declareLocked(engine, .musicPlayerDeclare) { _ in }
    }

    /// Records a new queue: each item's identity, what shuffling by album
    /// reads (its album title), and its asset.
    func recordQueueLocked(_ items: [any MusicItem]) {
        record(.musicSetQueue) { encoder in
            encoder.append(UInt64(items.count))
            for item in items {
                encoder.append(item.persistentID)
                encoder.append(item.title)
                encoder.appendOptional(item.artist) { $0.append($1) }
                encoder.appendOptional(item.albumTitle) { $0.append($1) }
                EngineCaptureValues.encode(item.playbackDuration, into: &encoder)
                MusicCaptureValues.encode(item.asset, into: &encoder)
            }
        }
    }
}
