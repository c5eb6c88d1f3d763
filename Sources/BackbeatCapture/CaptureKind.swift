/// What a capture record says happened: a number the reader switches on.
///
/// Each module owns a range, and names its kinds in its own file, so a new
/// kind never collides with another module's:
///
/// | range           | module           | file                                  |
/// |-----------------|------------------|---------------------------------------|
/// | `0x000..<0x100` | BackbeatEngine   | `EngineCaptureCommand.swift`          |
/// | `0x100..<0x200` | BackbeatEffects  | `EffectsCaptureCommand.swift`         |
/// | `0x200..<0x300` | BackbeatMusic    | `MusicCaptureCommand.swift`           |
/// | `0x300..<0x380` | BackbeatSession  | `SessionCaptureCommand.swift` (engine)|
/// | `0x380..<0x400` | file reloads     | `ReloadCaptureCommand.swift`          |
///
/// A reader skips a kind it does not know (each record carries its length),
/// so a newer writer can add kinds within one format version; changing what
/// an existing kind's payload means needs a new ``CaptureFormat/version``.
package struct CaptureKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: UInt16

    package init(rawValue: UInt16) { self.rawValue = rawValue }
    package init(_ rawValue: UInt16) { self.rawValue = rawValue }

    package var description: String { "0x" + String(rawValue, radix: 16) }

    /// Kinds the engine itself writes.
    package static let engineRange: Range<UInt16> = 0x000..<0x100
    /// Kinds BackbeatEffects writes: sounds, voices, events, banks, listener, reverb.
    package static let effectsRange: Range<UInt16> = 0x100..<0x200
    /// Kinds BackbeatMusic writes: players, queues, items, adaptive music.
    package static let musicRange: Range<UInt16> = 0x200..<0x300
    /// Kinds for the audio session: categories, activation, events from the system.
    package static let sessionRange: Range<UInt16> = 0x300..<0x380
    /// Kinds for banks and sounds reloaded from changed files.
    package static let reloadRange: Range<UInt16> = 0x380..<0x400

    /// The capture's first record: how the engine was opened. Payload: ``CaptureOpening``.
    package static let open = CaptureKind(0x001)
    /// The capture's last record, written by `stop()` or at shutdown; its
    /// frame is where the captured session ends. Payload: a `Bool`, whether
    /// the engine shut down (so its shutdown fade is part of what was heard).
    package static let end = CaptureKind(0x002)
}
