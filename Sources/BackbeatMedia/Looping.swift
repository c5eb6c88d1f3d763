/// How many times a sound plays: a sound effect's voice plays its whole
/// sound this many times; a sound effect or a song with ``LoopPoints`` plays
/// its intro once, its loop region this many times, then its tail.
public enum Looping: Sendable, Hashable, Codable {
    /// Once (the default): straight through.
    case once
    /// `count` times in a row, gaplessly (1 or less plays once).
    case times(Int)
    /// Over and over until the voice or player is stopped.
    case forever

    /// The repeats after the first play, with -1 for forever (OpenAL's and
    /// the pool's counting).
    package var extraPlays: Int {
        switch self {
        case .once: 0
        case .times(let count): max(0, count - 1)
        case .forever: -1
        }
    }
}
