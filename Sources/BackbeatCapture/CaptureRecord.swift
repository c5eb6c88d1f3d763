/// One thing a capture recorded: what (``kind``), at which engine frame it
/// took effect, and its payload, read with ``CaptureDecoder``.
package struct CaptureRecord: Sendable {
    /// What happened.
    package let kind: CaptureKind
    /// The engine frame at which it took effect.
    package let frame: Int64
    /// Its details, as the module that owns ``kind`` wrote them.
    package let payload: ArraySlice<UInt8>

    /// A record.
    ///
    /// - Parameters:
    ///   - kind: What happened.
    ///   - frame: The engine frame at which it took effect.
    ///   - payload: Its details.
    package init(kind: CaptureKind, frame: Int64, payload: ArraySlice<UInt8>) {
        self.kind = kind
        self.frame = frame
        self.payload = payload
    }

    /// A decoder over the payload.
    package var decoder: CaptureDecoder { CaptureDecoder(payload) }
}
