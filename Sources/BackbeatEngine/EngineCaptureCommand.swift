import BackbeatCapture

/// The record kinds the engine writes (``CaptureKind/engineRange``). The
/// opening (`0x001`) and the end (`0x002`) are in ``CaptureKind`` itself.
extension CaptureKind {
    /// ``AudioEngine/shutdown()`` began (before its music fade). No payload.
    package static let shutdown = CaptureKind(0x003)
    /// The shutdown fade started on the audible music players. Payload: its length in frames (Int64).
    package static let shutdownFade = CaptureKind(0x004)
}
