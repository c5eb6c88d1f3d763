import BackbeatEngine

extension Voice {
    /// The voice's id, as the effects' capture records name it: a duck it
    /// releases (`Bus.duck(by:attack:release:until:)`) is recorded with it.
    package var captureIDLocked: UInt64 { id.raw }
}
