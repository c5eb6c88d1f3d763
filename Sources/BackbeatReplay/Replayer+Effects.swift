import BackbeatCapture

extension Replayer {
    /// Applies a record of CaptureKind/effectsRange.
    ///
    /// - Parameter record: The record.
    /// - Throws: When its payload does not decode or the call it replays fails.
    func applyEffects(_ record: CaptureRecord) throws {
        switch record.kind {
        default: skipUnknown(record)
        }
    }
}
