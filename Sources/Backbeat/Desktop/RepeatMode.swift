/// How a music player repeats: MPRIS's LoopStatus, in Apple's names.
public enum RepeatMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// Plays the queue once (LoopStatus `None`).
    case none
    /// Repeats the current item (LoopStatus `Track`).
    case one
    /// Repeats the whole queue (LoopStatus `Playlist`).
    case all

    init?(loopStatus: String) {
        switch loopStatus {
        case "None": self = .none
        case "Track": self = .one
        case "Playlist": self = .all
        default: return nil
        }
    }

    var loopStatus: String {
        switch self {
        case .none: "None"
        case .one: "Track"
        case .all: "Playlist"
        }
    }
}
