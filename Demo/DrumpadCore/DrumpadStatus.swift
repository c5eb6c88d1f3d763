import Backbeat

/// What the demo's screen shows, as one value: pads, music, session, messages.
public struct DrumpadStatus: Sendable, Equatable {
    /// Engine time now.
    public var time: MediaTime = .zero
    /// When each pad was last heard (engine time), from the engine's voice events.
    public var lastHit: [DrumpadCommand.Pad: MediaTime] = [:]
    /// How many pad hits have been heard so far (voices started), all pads together.
    public var padsHeard = 0
    /// The music player's state, or nil when there is no music player.
    public var playbackState: DrumpadPlaybackState?
    /// The now-playing item's title, album and artist.
    public var nowPlaying: NowPlaying?
    /// The music's level, 0...1, or nil when not metering.
    public var level: Float?
    /// The session's category and options, as typed (`playback mix`).
    public var session = ""
    /// The current route's name.
    public var route = ""
    /// The quantize grid.
    public var quantize: DrumpadCommand.Quantize = .off
    /// The latest messages, oldest first (at most ``maximumMessages``).
    public var messages: [String] = []
    /// Where `place` put each pad (a pad not here plays 2D).
    public var placements: [DrumpadCommand.Pad: Audio3DPoint] = [:]
    /// The map of the level `geometry` loaded (empty: none).
    public var levelMap: [String] = []
    /// The listener's heading from `turn`, in degrees right of -Z.
    public var heading: Float = 0
    /// The level music's section asked for last (nil: not started).
    public var section: String?
    /// The level music's "intensity" parameter.
    public var intensity: Float = 0

    /// The lines that describe a now-playing item.
    public struct NowPlaying: Sendable, Equatable {
        /// The title.
        public var title: String
        /// The album, or `Unknown Album`.
        public var album: String
        /// The artist, or `Unknown Artist`.
        public var artist: String
        /// The embedded artwork's size (`192×192 artwork`), or `no artwork`.
        public var artwork: String
    }

    /// The pad heard most recently and when (engine time), or nil before the first.
    public var lastPad: (pad: DrumpadCommand.Pad, time: MediaTime)? {
        lastHit.max { a, b in a.value != b.value ? a.value < b.value : a.key.number > b.key.number }
            .map { (pad: $0.key, time: $0.value) }
    }

    /// How many messages the status keeps.
    public static let maximumMessages = 6

    /// Adds a message, dropping the oldest beyond ``maximumMessages``.
    public mutating func append(message: String) {
        messages.append(message)
        if messages.count > Self.maximumMessages { messages.removeFirst(messages.count - Self.maximumMessages) }
    }
}
