import BackbeatCapture

/// The record kinds for banks and sounds reloaded from changed files
/// (``CaptureKind/reloadRange``), written where a reload takes effect.
///
/// Each says what the new definition is, as a ``CapturedFile`` (the file's
/// fingerprint, and its bytes up to 1 MiB), and whether it took effect just
/// after the update step at its frame (a reload the step's file watch
/// started, on an offline or file output) or before the next one; a replay
/// applies it at the same point, so a capture of an offline session with
/// reloads replays bit for bit. A reload that failed keeps the old
/// definition and writes nothing.
extension CaptureKind {
    /// A bank read its file again: the bank's id, whether it was after the
    /// step (`Bool`), then the file as read (a ``CapturedFile``; the text is
    /// kept up to 1 MiB, a larger bank is read again from its file).
    package static let reloadBank = CaptureKind(0x380)
    /// A sound decoded its file again (or, not resident, will decode it at
    /// its next play): which sound (`0` and its id; `1`, a sound of a bank:
    /// the bank's id and the sound's key there), whether it was after the
    /// step (`Bool`), then the file as read (a ``CapturedFile``).
    package static let reloadSound = CaptureKind(0x381)
}
