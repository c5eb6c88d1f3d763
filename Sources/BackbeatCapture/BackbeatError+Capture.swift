import BackbeatSupport

extension BackbeatError.Code {
    /// A file given as a capture is not one (it does not start as a capture does).
    public static let notACapture = Self("not a capture")
    /// A capture written by a newer Backbeat, in a format this one cannot read.
    public static let captureVersionUnsupported = Self("capture format too new")
    /// A capture's record does not make sense (its block passed its check, but
    /// what it says cannot be replayed): a replay stops there and keeps what it rendered.
    public static let captureDamaged = Self("capture damaged")
}
