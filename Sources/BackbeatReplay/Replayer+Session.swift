import BackbeatCapture

extension Replayer {
    /// Applies a record of CaptureKind/sessionRange.
    ///
    /// - Parameter record: The record.
    /// - Throws: When its payload does not decode or the call it replays fails.
    func applySession(_ record: CaptureRecord) throws {
        switch record.kind {
        default: skipUnknown(record)
        }
    }
}
