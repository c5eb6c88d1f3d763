import BackbeatCapture
import BackbeatEngine

extension Replayer {
    /// Applies a record of ``CaptureKind/engineRange``.
    ///
    /// - Parameter record: The record.
    /// - Throws: When its payload does not decode or the call it replays fails.
    func applyEngine(_ record: CaptureRecord) throws {
        var decoder = record.decoder
        switch record.kind {
        case .shutdown:
            markShutDown()
            note("shutdown")
        case .shutdownFade:
            let frames: Int64
            do { frames = try decoder.int64() } catch { throw damaged(record, error) }
            guard frames > 0, frames <= Int64(opening.sampleRate) * 3600 else {
                throw damaged(record, CaptureFormatError.malformed("a shutdown fade of \(frames) frames"))
            }
            _ = engine.withLock { engine.beginShutdownFadeLocked(frames: frames) }
        default: skipUnknown(record)
        }
    }
}
