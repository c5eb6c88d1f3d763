import Backbeat
import Foundation

/// The drum pad demo's command-line options.
public struct DrumpadOptions: Sendable, Equatable {
    /// The folder of the music library (default: `Music` in the assets folder).
    public var library: URL?
    /// The folder holding `Drums/` and `Music/` (default: `Assets` found from the working directory or the executable).
    public var assets: URL?
    /// The WAV file to render to instead of the sound device.
    public var output: URL?
    /// A script to read instead of standard input.
    public var script: URL?
    /// The sound device's period size and count: `.low` unless `--latency`
    /// says otherwise, since a drummer hears a pad that sounds 20 ms after
    /// the key as late.
    public var latency: AudioEngine.OutputLatency = .low
    /// The grid pad hits snap to.
    public var quantize: DrumpadCommand.Quantize = .off
    /// The seed of `random`'s choices, so a script sounds the same on every run.
    public var seed: UInt64 = 8
    /// Whether to publish the demo's music player on the desktop bus (MPRIS).
    public var mpris = false
    /// Whether to serve live telemetry to `backbeat monitor` (`--monitor`).
    public var monitor = false
    /// Where to write a capture of the session, for `backbeat replay` (`--capture FILE`).
    public var capture: URL?
    /// Whether to show OpenAL Soft's and ALSA's messages (`--verbose`).
    public var verbose = false
    /// Whether `--help` was asked for.
    public var showHelp = false

    /// The usage text.
    public static let usage = """
        usage: drumpad [--library DIR] [--assets DIR] [--output FILE.wav] [--script FILE]
                       [--latency low|default|safe] [--quantize off|on|1/4|1/8|1/16] [--seed N]
                       [--mpris] [--monitor] [--capture FILE] [--verbose]
          --library DIR      the music library to scan (default: Assets/Music)
          --assets DIR       the folder holding Drums/ and Music/ (default: ./Assets, or beside the executable)
          --output FILE.wav  render to a WAV file instead of the sound device (the default when there is none)
          --script FILE      read commands from FILE instead of standard input
          --latency PRESET   the sound device's latency: low (default, about 9 ms), default or safe
          --quantize GRID    snap pad hits to the now-playing song's beat (default: off)
          --seed N           the seed of `random` (default: 8)
          --mpris            publish the music player on the desktop bus, as backbeat.drumpad (media keys, playerctl)
          --monitor          serve live telemetry to `backbeat monitor PID` (prints the PID to pass)
          --capture FILE     record the session to FILE; `backbeat replay FILE --output out.wav` renders it again
          --verbose          show the sound libraries' messages (OpenAL Soft, ALSA) on standard error
        Commands, one per line: 1-4 or snare|bass|tambourine|maraca [VELOCITY], play, pause, toggle, next, prev,
        seek 1:23, stop, repeat none|one|all, shuffle off|songs|albums, random [GENRE], pick, now,
        quantize off|on|1/8|1/16, session ambient|soloambient|playback [mix|duck],
        env call-begin|call-end [resume]|unplug|plug|silent on|off|other-audio on|off,
        place PAD X Y Z (metres; +X right, -Z ahead) or place PAD off, turn DEGREES (positive right),
        hrtf on|off, reverb PRESET|off (hangar, cave, bathroom...), occlude PAD DB (-100 to 0), menu on|off,
        section explore|combat (level music; later changes on the next bar), intensity 0-1 (brings in its drums),
        stinger (on the next beat), bank FILE (a sound bank; follows its file with --monitor), event NAME,
        pad N EVENT (pad N posts the bank's event), geometry FILE.obj|off (a level: walls, rooms, doors),
        door NAME open|close|0-1, listener X Y Z, map (prints the map from a script), wait 1.5, quit.
        """

    /// Default options.
    public init() {}

    /// Parses `arguments` (without the program name).
    /// - Throws: ``DrumpadOptionsError`` naming the bad option.
    public init(arguments: [String]) throws(DrumpadOptionsError) {
        var rest = arguments[...]
        func value(_ option: String) throws(DrumpadOptionsError) -> String {
            guard let value = rest.popFirst(), !value.isEmpty else {
                throw DrumpadOptionsError("\(option) needs a value")
            }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--library": library = URL(fileURLWithPath: try value(argument), isDirectory: true)
            case "--assets": assets = URL(fileURLWithPath: try value(argument), isDirectory: true)
            case "--output": output = URL(fileURLWithPath: try value(argument))
            case "--script": script = URL(fileURLWithPath: try value(argument))
            case "--capture": capture = URL(fileURLWithPath: try value(argument))
            case "--latency":
                let word = try value(argument)
                guard let preset = Self.latencyPresets[word] else {
                    throw DrumpadOptionsError(
                        "--latency expects low, default or safe, got \"\(DrumpadCommand.excerpt(word))\"")
                }
                latency = preset
            case "--quantize":
                let word = try value(argument)
                guard let grid = DrumpadCommand.Quantize(word: word) else {
                    throw DrumpadOptionsError(
                        "--quantize expects off, on, 1/4, 1/8 or 1/16, got \"\(DrumpadCommand.excerpt(word))\"")
                }
                quantize = grid
            case "--seed":
                let word = try value(argument)
                guard let seed = UInt64(word) else {
                    throw DrumpadOptionsError("--seed expects a whole number, got \"\(DrumpadCommand.excerpt(word))\"")
                }
                self.seed = seed
            case "--mpris": mpris = true
            case "--monitor": monitor = true
            case "--verbose": verbose = true
            case "-h", "--help": showHelp = true
            default: throw DrumpadOptionsError("unknown option \"\(DrumpadCommand.excerpt(argument))\"")
            }
        }
    }

    /// The presets `--latency` takes, by name.
    static let latencyPresets: [String: AudioEngine.OutputLatency] = [
        "low": .low, "default": .default, "safe": .safe,
    ]

    /// The output the demo opens when it plays on a sound device: the
    /// default device at ``latency``.
    public var deviceOutput: AudioEngine.Output { .device(latency: latency) }

    /// The assets folder: `--assets`, else `Assets` in the working directory, else
    /// `Assets` in the executable's folder or one of its parents. Nil when none holds `Drums/`.
    public func assetsFolder(executable: URL? = nil, workingDirectory: URL? = nil) -> URL? {
        let fm = FileManager.default
        func holdsDrums(_ url: URL) -> Bool {
            var isDirectory: ObjCBool = false
            return fm.fileExists(atPath: url.appendingPathComponent("Drums").path, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }
        if let assets { return assets }
        let cwd = workingDirectory ?? URL(fileURLWithPath: fm.currentDirectoryPath, isDirectory: true)
        if holdsDrums(cwd.appendingPathComponent("Assets")) { return cwd.appendingPathComponent("Assets") }
        var folder = (executable ?? URL(fileURLWithPath: CommandLine.arguments[0])).standardizedFileURL
            .resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<6 {
            if holdsDrums(folder.appendingPathComponent("Assets")) { return folder.appendingPathComponent("Assets") }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }
}

/// A bad command line: one line saying what is wrong.
public struct DrumpadOptionsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line.
    public let description: String
    init(_ description: String) { self.description = description }
}
