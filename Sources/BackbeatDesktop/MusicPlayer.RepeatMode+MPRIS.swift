import BackbeatMusic

extension MusicPlayer.RepeatMode {
    /// The MPRIS LoopStatus for a repeat mode: `None`, `Track` or `Playlist`.
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

    private var word: String {
        switch self {
        case .none: "none"
        case .one: "one"
        case .all: "all"
        }
    }

    /// Decodes `"none"`, `"one"` or `"all"`.
    ///
    /// - Parameter decoder: The decoder to read one string from.
    /// - Throws: `DecodingError.dataCorrupted` for any other string.
    public init(from decoder: any Decoder) throws {
        let word = try decoder.singleValueContainer().decode(String.self)
        switch word {
        case "none": self = .none
        case "one": self = .one
        case "all": self = .all
        default:
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "not a repeat mode: \(word)"))
        }
    }

    /// Encodes as `"none"`, `"one"` or `"all"`.
    ///
    /// - Parameter encoder: The encoder to write one string to.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(word)
    }
}
