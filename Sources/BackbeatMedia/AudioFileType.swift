/// A container Backbeat writes, like `AVFileType`.
public struct AudioFileType: Sendable, Hashable, CustomStringConvertible {
    /// The usual file extension, without the dot.
    public let pathExtension: String
    let name: String

    /// RIFF WAVE (little-endian PCM), through libsndfile.
    public static let wav = AudioFileType(pathExtension: "wav", name: "WAV")
    /// AIFF (big-endian PCM), through libsndfile.
    public static let aiff = AudioFileType(pathExtension: "aiff", name: "AIFF")
    /// Core Audio Format, through libsndfile.
    public static let caf = AudioFileType(pathExtension: "caf", name: "CAF")
    /// FLAC (lossless, 16 or 24 bits), through libsndfile.
    public static let flac = AudioFileType(pathExtension: "flac", name: "FLAC")
    /// Ogg Vorbis (lossy), through vorbisenc.
    public static let oggVorbis = AudioFileType(pathExtension: "ogg", name: "Ogg")
    /// Ogg Opus (lossy), through libsndfile: 8000, 12000, 16000, 24000 or 48000 Hz.
    public static let oggOpus = AudioFileType(pathExtension: "opus", name: "Opus")

    /// The sample rates an Ogg Opus file can be written at.
    public static let opusSampleRates = [8_000, 12_000, 16_000, 24_000, 48_000]

    /// Every type Backbeat writes.
    public static let all: [AudioFileType] = [.wav, .aiff, .caf, .flac, .oggVorbis, .oggOpus]

    /// The type for a file extension (`wav`, `wave`, `aif`, `aiff`, `aifc`, `caf`, `flac`, `ogg`, `oga`, `opus`), case-insensitive.
    ///
    /// - Parameter pathExtension: The extension without its dot; an unknown one gives nil.
    public init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "wav", "wave": self = .wav
        case "aif", "aiff", "aifc": self = .aiff
        case "caf": self = .caf
        case "flac": self = .flac
        case "ogg", "oga": self = .oggVorbis
        case "opus": self = .oggOpus
        default: return nil
        }
    }

    private init(pathExtension: String, name: String) {
        self.pathExtension = pathExtension
        self.name = name
    }

    /// Whether the type stores PCM samples as they are (WAV, AIFF, CAF).
    public var isPCM: Bool { self == .wav || self == .aiff || self == .caf }

    /// The container name, as ``AudioAsset`` reports it (`WAV`, `AIFF`, `CAF`, `FLAC`, `Ogg`).
    public var description: String { name }
}
