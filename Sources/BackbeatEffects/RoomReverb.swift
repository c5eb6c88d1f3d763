import BackbeatEngine

/// How another room's reverb reaches the listener through the portals
/// between: its room, panned toward the portal it is heard through, at a
/// level for the opening's size and openness (set by BackbeatAcoustics).
package struct RoomReverb: Sendable {
    /// The room's name: what a voice's send names (``AcousticVoiceFilter/reverbRoom``).
    package let room: String
    /// The room's reverb, its reflections and late reverb panned toward the portal.
    package let reverb: AudioEnvironmentReverbParameters
    /// The amplitude that reaches the listener, 0...1 (times the reverb's level).
    package let gain: Float

    /// A room's reverb as the listener hears it.
    ///
    /// - Parameters:
    ///   - room: The room's name.
    ///   - reverb: Its reverb, panned.
    ///   - gain: The amplitude that reaches the listener, 0...1.
    package init(room: String, reverb: AudioEnvironmentReverbParameters, gain: Float) {
        self.room = room
        self.reverb = reverb
        self.gain = gain
    }
}
