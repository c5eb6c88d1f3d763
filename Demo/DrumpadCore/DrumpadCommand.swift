import Backbeat

/// One line of the drum pad demo's command language, parsed.
///
/// Every command a person can type at the demo, or put in a script, has one
/// case here. ``parse(_:)`` turns a line into a command; ``description`` turns
/// a command back into the canonical line that parses to it again.
///
/// Times are exact ``MediaTime`` values at a microsecond timescale, never
/// floating point, so a scripted `wait 1.5s` is exactly 72,000 frames at 48 kHz.
public enum DrumpadCommand: Sendable, Hashable, CustomStringConvertible {
    /// Hits a pad. `velocity` is a MIDI-style 0–127 integer (127 when not typed);
    /// ``Pad/gain(forVelocity:)`` maps it to a linear gain.
    case pad(Pad, velocity: Int)
    /// Starts or resumes the music.
    case play
    /// Pauses the music.
    case pause
    /// Plays when paused, pauses when playing.
    case toggle
    /// Skips to the next song in the queue.
    case next
    /// Goes back to the previous song (or the start of this one).
    case previous
    /// Moves the playhead of the current song to a time from its start.
    case seek(MediaTime)
    /// Stops the music and rewinds the queue.
    case stop
    /// Sets the music player's repeat mode.
    case repeatMode(RepeatMode)
    /// Sets the music player's shuffle mode.
    case shuffle(ShuffleMode)
    /// Plays a random song, from one genre when `genre` is not nil (matched by the library, as typed).
    case random(genre: String?)
    /// Opens the terminal media picker.
    case pick
    /// Shows the now-playing title, album, artist and artwork.
    case nowPlaying
    /// Changes the audio session's category, and for playback its mixing option.
    case session(SessionCategory, SessionOption?)
    /// Simulates an event from the environment (a call, headphones, the silent switch, other apps).
    case environment(EnvironmentEvent)
    /// Sets the grid pads snap to: the next beat or subdivision of the now-playing song.
    case quantize(Quantize)
    /// Places a pad's later hits at a point in metres (OpenAL axes: +X right,
    /// +Y up, -Z ahead of a listener that has not turned), or back to its 2D
    /// pan when the point is nil (`place PAD off`).
    case place(Pad, Audio3DPoint?)
    /// Turns the listener to an absolute heading in degrees about +Y: positive
    /// turns right, 0 faces -Z.
    case turn(Float)
    /// Renders placed pads through an HRTF (for headphones), or not.
    case hrtf(Bool)
    /// Sets the environment reverb to an EFX preset, by its name in lowercase
    /// without `EFX_REVERB_PRESET_` (`hangar`, `cave`, `bathroom`), or turns it
    /// off (nil); later pad hits send to it.
    case reverb(String?)
    /// Occludes a pad's later hits by a level in dB, -100...0 (0: clear).
    case occlude(Pad, Float)
    /// The pause menu: muffles and lowers the pads and the music (on), or not (off).
    case menu(Bool)
    /// Lets engine time pass before the next command.
    case wait(MediaTime)
    /// `intensity 0…1`: the level music's "intensity" game parameter (brings in the drums layer).
    case intensity(Float)
    /// `section NAME`: start the level music's section, or change to it on the next bar.
    case section(String)
    /// `stinger`: the level music's stinger on the next beat.
    case stinger
    /// `bank FILE`: loads a sound bank (its events become playable by name;
    /// with `--monitor` it follows its file while the demo runs).
    case bank(String)
    /// `event NAME`: plays one of the loaded bank's events.
    case event(String)
    /// `pad N EVENT`: pad N plays the bank's event from now on.
    case mapPad(Pad, event: String)
    /// `geometry FILE.obj`: loads a level from a Wavefront OBJ file and hears
    /// the placed pads through it; `geometry off` (nil) removes it.
    case geometry(String?)
    /// `door NAME open|close|AMOUNT`: sets a portal's openness, 0 (closed) to 1 (open).
    case door(String, Float)
    /// `listener X Y Z`: moves the listener, in metres (the axes `place` uses).
    case listener(Audio3DPoint)
    /// `map`: prints the map (the level's from above with a level loaded, else the placed pads').
    case map
    /// Fades the music out and ends the demo.
    case quit

    /// The canonical command line, which parses back to this command.
    public var description: String {
        switch self {
        case let .pad(pad, velocity): "\(pad.rawValue) \(velocity)"
        case .play: "play"
        case .pause: "pause"
        case .toggle: "toggle"
        case .next: "next"
        case .previous: "prev"
        case let .seek(time): "seek \(Self.clock(time))"
        case .stop: "stop"
        case let .repeatMode(mode): "repeat \(mode.rawValue)"
        case let .shuffle(mode): "shuffle \(mode.rawValue)"
        case let .random(genre): genre.map { "random \($0)" } ?? "random"
        case .pick: "pick"
        case .nowPlaying: "now"
        case let .session(category, option):
            option.map { "session \(category.rawValue) \($0.rawValue)" }
                ?? "session \(category.rawValue)"
        case let .environment(event): "env \(event.description)"
        case let .quantize(grid): "quantize \(grid.rawValue)"
        case let .place(pad, point?):
            "place \(pad.rawValue) \(Self.number(point.x)) \(Self.number(point.y)) \(Self.number(point.z))"
        case let .place(pad, nil): "place \(pad.rawValue) off"
        case let .turn(degrees): "turn \(Self.number(degrees))"
        case let .hrtf(on): on ? "hrtf on" : "hrtf off"
        case let .reverb(preset): "reverb \(preset ?? "off")"
        case let .occlude(pad, decibels): "occlude \(pad.rawValue) \(Self.number(decibels))"
        case let .menu(on): on ? "menu on" : "menu off"
        case let .wait(time): "wait \(Self.seconds(time))s"
        case let .intensity(value): "intensity \(Self.number(value))"
        case let .section(name): "section \(name)"
        case .stinger: "stinger"
        case let .bank(path): "bank \(path)"
        case let .event(name): "event \(name)"
        case let .mapPad(pad, event): "pad \(pad.number) \(event)"
        case let .geometry(file): "geometry \(file ?? "off")"
        case let .door(name, amount): "door \(name) \(Self.number(amount))"
        case let .listener(point):
            "listener \(Self.number(point.x)) \(Self.number(point.y)) \(Self.number(point.z))"
        case .map: "map"
        case .quit: "quit"
        }
    }

    /// A number as typed back: `3`, `-0.5`; exact (it parses back to the same Float).
    static func number(_ value: Float) -> String {
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// `m:ss` or `h:mm:ss`, with the fraction of a second when there is one.
    static func clock(_ time: MediaTime) -> String {
        let micros = time.converted(to: 1_000_000).value
        let fraction = micros % 1_000_000
        return fraction == 0 ? time.formatted : time.formatted + fractionDigits(fraction)
    }

    /// Decimal seconds without trailing zeros: `1.5`, `0.25`, `3`.
    static func seconds(_ time: MediaTime) -> String {
        let micros = time.converted(to: 1_000_000).value
        return "\(micros / 1_000_000)" + fractionDigits(micros % 1_000_000)
    }

    private static func fractionDigits(_ micros: Int64) -> String {
        guard micros != 0 else { return "" }
        var digits = String(micros)
        digits = String(repeating: "0", count: 6 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "." + digits
    }
}
