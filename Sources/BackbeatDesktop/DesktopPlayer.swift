import BackbeatMusic

/// A media player on the desktop bus, as last reported through MPRIS.
public struct DesktopPlayer: Sendable, Hashable, Codable {
    /// Whether the player plays.
    public enum Status: String, Sendable, Hashable, Codable {
        case playing, paused, stopped

        init(mpris: String?) {
            switch mpris {
            case "Playing": self = .playing
            case "Paused": self = .paused
            default: self = .stopped
            }
        }

        var mpris: String {
            switch self {
            case .playing: "Playing"
            case .paused: "Paused"
            case .stopped: "Stopped"
            }
        }
    }

    /// The player's MPRIS name, such as `mpv` or `vlc.instance1234`.
    public var name: String
    /// The full bus name, such as `org.mpris.MediaPlayer2.mpv`.
    public var busName: String
    /// The player's own human-readable name, such as `mpv Media Player`.
    public var identity: String?
    /// Playing, paused or stopped.
    public var playbackStatus: Status
    /// The current track, if the player reports one.
    public var nowPlaying: NowPlayingInfo?
    /// The player's volume, 0...1 (some players go above 1), if it has one.
    public var volume: Double?
    /// How the player repeats, if it says.
    public var repeatMode: MusicPlayer.RepeatMode?
    /// Whether the player shuffles, if it says.
    public var isShuffling: Bool?
}
