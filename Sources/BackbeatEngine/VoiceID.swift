/// A voice's identity in ``PlaybackEvent``s (`Voice.ID`): unique within the process.
public struct VoiceID: Hashable, Sendable, CustomStringConvertible {
    package let raw: UInt64

    package init(raw: UInt64) { self.raw = raw }

    public var description: String { "#\(raw)" }
}
