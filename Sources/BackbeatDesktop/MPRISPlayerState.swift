import BackbeatMusic

/// What Backbeat knows of one MPRIS player on the bus, kept current from its
/// PropertiesChanged signals.
struct MPRISPlayerState: Sendable, Equatable {
    /// The well-known name, such as `org.mpris.MediaPlayer2.mpv`.
    var busName: String
    /// The unique name of the connection that owns it, such as `:1.7`.
    var owner: String
    var identity: String?
    var hasTrackList = false
    var playbackStatus: String?
    var metadata: [String: DBusValue] = [:]
    var volume: Double?
    var loopStatus: String?
    var shuffle: Bool?
    /// Microseconds, as last read or reported by a Seeked signal.
    var position: Int64?
    var canGoNext: Bool?
    var canGoPrevious: Bool?
    var canSeek: Bool?
    var canControl: Bool?
    /// Increases each time a player starts playing: the largest is the one most recently playing.
    var playingSequence: UInt64 = 0

    /// The name after `org.mpris.MediaPlayer2.`.
    var name: String {
        busName.hasPrefix(DBusNames.mprisPrefix) ? String(busName.dropFirst(DBusNames.mprisPrefix.count)) : busName
    }

    var isPlaying: Bool { playbackStatus == "Playing" }

    /// Applies `org.mpris.MediaPlayer2.Player` properties. Values of the wrong
    /// type are ignored (the property keeps its last good value).
    mutating func applyPlayer(_ properties: [String: DBusValue]) {
        for (key, value) in properties {
            switch key {
            case "PlaybackStatus": if let s = value.string { playbackStatus = s }
            case "Metadata": if let m = value.dictionary { metadata = m }
            case "Volume": if let v = value.double { volume = v }
            case "LoopStatus": if let s = value.string { loopStatus = s }
            case "Shuffle": if let b = value.bool { shuffle = b }
            case "Position": if let p = value.int64 { position = p }
            case "CanGoNext": if let b = value.bool { canGoNext = b }
            case "CanGoPrevious": if let b = value.bool { canGoPrevious = b }
            case "CanSeek": if let b = value.bool { canSeek = b }
            case "CanControl": if let b = value.bool { canControl = b }
            default: break
            }
        }
    }

    /// Applies `org.mpris.MediaPlayer2` properties.
    mutating func applyRoot(_ properties: [String: DBusValue]) {
        if let s = properties["Identity"]?.string { identity = s }
        if let b = properties["HasTrackList"]?.bool { hasTrackList = b }
    }

    /// The track as a public value; nil when the player reports no track.
    var nowPlaying: NowPlayingInfo? { NowPlayingInfo(metadata: metadata) }

    /// The public view.
    var publicValue: DesktopPlayer {
        DesktopPlayer(
            name: name, busName: busName, identity: identity,
            playbackStatus: DesktopPlayer.Status(mpris: playbackStatus),
            nowPlaying: nowPlaying, volume: volume,
            repeatMode: loopStatus.flatMap(MusicPlayer.RepeatMode.init(loopStatus:)), isShuffling: shuffle)
    }
}
