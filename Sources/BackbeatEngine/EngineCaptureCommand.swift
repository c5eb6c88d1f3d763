import BackbeatCapture

/// The record kinds the engine writes (``CaptureKind/engineRange``). The
/// opening (`0x001`) and the end (`0x002`) are in ``CaptureKind`` itself.
///
/// Objects are named by their capture id (a varint `UInt32`), given by the
/// record that declares them. Times are ``MediaTime``s as the game gave them
/// (value, timescale), floats their bit patterns (``EngineCaptureValues``).
extension CaptureKind {
    /// ``AudioEngine/shutdown()`` began (before its music fade). No payload.
    package static let shutdown = CaptureKind(0x003)
    /// The shutdown fade started on the audible music players. Payload: its length in frames (Int64).
    package static let shutdownFade = CaptureKind(0x004)

    /// A bus is declared. Payload: its id; which bus (`UInt64`: 0 one the game
    /// made with ``AudioEngine/makeBus(named:parent:)``, 1 the master, 2 the
    /// music, 3 the effects bus); its name; its parent's id (0: the master).
    package static let busDeclare = CaptureKind(0x010)
    /// ``Bus/volume`` set. Payload: bus id, the value (Float).
    package static let busVolume = CaptureKind(0x011)
    /// ``Bus/fade(to:duration:curve:completion:)``. Payload: bus id, target
    /// (Float), duration (time), curve (``EngineCaptureValues``).
    package static let busFade = CaptureKind(0x012)
    /// ``Bus/isMuted`` set. Payload: bus id, Bool.
    package static let busMute = CaptureKind(0x013)
    /// ``Bus/isPaused`` set. Payload: bus id, Bool.
    package static let busPause = CaptureKind(0x014)
    /// ``Bus/isSoloed`` set. Payload: bus id, Bool.
    package static let busSolo = CaptureKind(0x015)
    /// ``Bus/setFilter(_:over:)`` (and ``Bus/filter``). Payload: bus id, an
    /// optional filter, the glide (time).
    package static let busFilter = CaptureKind(0x016)
    /// ``Bus/setEffect(_:wetDryMix:)`` that succeeded. Payload: bus id, an
    /// optional effect, the wet/dry mix (Float).
    package static let busEffect = CaptureKind(0x017)
    /// ``Bus/duck(by:attack:release:)``. Payload: bus id, the duck's id,
    /// decibels (Float), attack (time), release (time).
    package static let busDuck = CaptureKind(0x018)
    /// ``Duck/release()``. Payload: the duck's id.
    package static let duckRelease = CaptureKind(0x019)
    /// A ``GameParameter`` is declared. Payload: its id, name, range bottom
    /// and top (Float), the value set (Float), the heard value (Float), an
    /// optional slew per second (Float).
    package static let parameterDeclare = CaptureKind(0x01A)
    /// ``GameParameter/value`` set. Payload: parameter id, the value (Float).
    package static let parameterValue = CaptureKind(0x01B)
    /// ``Bus/bindFilterCutoff(to:curve:)``. Payload: bus id, parameter id, curve.
    package static let busFilterBinding = CaptureKind(0x01C)
    /// An offline or file render call ended between two update steps. OpenAL
    /// ramps a change over the mix call that follows it, so where a render
    /// is split changes samples while a ramp runs: a replay splits its own
    /// render here too. No payload.
    package static let renderSplit = CaptureKind(0x01D)
    /// The effects layer's `Bus.duck(by:attack:release:until:)` with a voice:
    /// a duck that also releases itself when the voice ends. Payload: bus id,
    /// the duck's id, decibels (Float), attack (time), release (time), then
    /// the voice's id (`UInt64`, as the effects' voice records name it).
    package static let busDuckUntil = CaptureKind(0x01E)
}
