/// How many times a voice plays its sound: ``SoundEffect/play(volume:pan:rate:looping:priority:bus:completion:)``.
public enum Looping: Sendable, Hashable, Codable {
    /// Once (the default).
    case once
    /// `count` times in a row, gaplessly (1 or less plays once).
    case times(Int)
    /// Over and over until the voice is stopped.
    case forever

    /// The repeats after the first play, with -1 for forever (OpenAL's and
    /// the pool's counting).
    var extraPlays: Int {
        switch self {
        case .once: 0
        case .times(let count): max(0, count - 1)
        case .forever: -1
        }
    }
}
