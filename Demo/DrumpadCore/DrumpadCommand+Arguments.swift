import Backbeat

extension DrumpadCommand {
    /// The four drum pads, numbered as on the screen.
    public enum Pad: String, Sendable, Hashable, CaseIterable {
        /// Pad 1.
        case snare
        /// Pad 2: the bass drum.
        case bass
        /// Pad 3.
        case tambourine
        /// Pad 4.
        case maraca

        /// The pad's number, 1–4.
        public var number: Int {
            switch self {
            case .snare: 1
            case .bass: 2
            case .tambourine: 3
            case .maraca: 4
            }
        }

        /// The pad with a number, 1–4, or nil.
        public init?(number: Int) {
            guard let pad = Self.allCases.first(where: { $0.number == number }) else { return nil }
            self = pad
        }

        /// The linear gain for a 0–127 velocity: `velocity / 127`, clamped to 0...1.
        public static func gain(forVelocity velocity: Int) -> Float {
            Float(min(max(velocity, 0), maximumVelocity)) / Float(maximumVelocity)
        }

        /// The loudest velocity, and the one used when none is typed.
        public static let maximumVelocity = 127
    }

    /// The grid pad hits snap to, in the now-playing song's beats (quarter notes).
    public enum Quantize: String, Sendable, Hashable, CaseIterable {
        /// Hits play at once.
        case off
        /// The next beat. `quantize on` means this.
        case beat = "1/4"
        /// The next half beat.
        case eighth = "1/8"
        /// The next quarter beat.
        case sixteenth = "1/16"

        /// Grid points per beat; 0 when off.
        public var divisionsPerBeat: Int {
            switch self {
            case .off: 0
            case .beat: 1
            case .eighth: 2
            case .sixteenth: 4
            }
        }

        /// The grid named by a word: `off`, `on` (the beat), `beat`, `1/4`, `1/8` or `1/16`.
        public init?(word: String) {
            switch DrumpadCommand.asciiLowercased(word) {
            case "on", "beat": self = .beat
            case let other:
                guard let grid = Self(rawValue: other) else { return nil }
                self = grid
            }
        }
    }

    /// What the music player does at the end of a song (the player's own modes, parsed by name).
    public typealias RepeatMode = MusicPlayer.RepeatMode

    /// How the music player orders the queue (the player's own modes, parsed by name).
    public typealias ShuffleMode = MusicPlayer.ShuffleMode

    /// The audio session categories the demo can switch between.
    public enum SessionCategory: String, Sendable, Hashable, CaseIterable {
        /// Mixes with other audio; the silent switch mutes it.
        case ambient
        /// The default: stops other audio; the silent switch mutes it.
        case soloAmbient = "soloambient"
        /// Music playback: stops other audio unless mixing; ignores the silent switch.
        case playback
    }

    /// The mixing options of the playback category.
    public enum SessionOption: String, Sendable, Hashable, CaseIterable {
        /// mixWithOthers: plays along with other audio.
        case mix
        /// duckOthers: plays along with other audio, lowering it.
        case duck
    }

    /// Events the demo simulates, as a phone's environment would send them.
    public enum EnvironmentEvent: Sendable, Hashable, CustomStringConvertible {
        /// An interruption (an incoming call) begins.
        case callBegan
        /// The interruption ends; `resume` says whether playback should resume.
        case callEnded(resume: Bool)
        /// The headphones are unplugged: the old output device is gone.
        case unplug
        /// Headphones are plugged in.
        case plug
        /// The silent switch is turned on or off.
        case silent(Bool)
        /// Another app starts or stops playing audio.
        case otherAudio(Bool)

        /// The event as typed after `env`.
        public var description: String {
            switch self {
            case .callBegan: "call-begin"
            case let .callEnded(resume): resume ? "call-end resume" : "call-end"
            case .unplug: "unplug"
            case .plug: "plug"
            case let .silent(on): on ? "silent on" : "silent off"
            case let .otherAudio(on): on ? "other-audio on" : "other-audio off"
            }
        }
    }
}
