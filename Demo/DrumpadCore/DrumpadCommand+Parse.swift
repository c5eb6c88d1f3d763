import Backbeat

extension DrumpadCommand {
    /// The longest line ``parse(_:)`` reads, in UTF-8 bytes; a longer line is an error (or a comment).
    public static let maximumLineLength = 1024

    /// The longest `wait`: ten minutes of engine time.
    public static let maximumWait = MediaTime(value: 600, timescale: 1)

    /// The furthest `seek`: 24 hours into a song.
    public static let maximumSeek = MediaTime(value: 24 * 3600, timescale: 1)

    /// The furthest a pad can be placed along each axis, in metres.
    public static let maximumPlacement: Float = 10_000

    /// The largest `turn`, either way, in degrees.
    public static let maximumTurn: Float = 360

    /// Every command word, in the order help lists them: the parser accepts
    /// these (and ``commandAliases``) and nothing else, and the message for an
    /// unknown word is made from this table, so it names every command.
    public static let commandWords = [
        "play", "pause", "toggle", "next", "prev", "seek", "stop", "repeat", "shuffle", "random", "pick", "now",
        "quantize", "session", "env", "place", "turn", "hrtf", "reverb", "occlude", "menu", "intensity", "section",
        "stinger", "bank", "event", "pad", "geometry", "door", "listener", "map", "wait", "quit",
    ]

    /// Other spellings of a command word, mapped to the word in ``commandWords``.
    public static let commandAliases = ["previous": "prev"]

    /// Parses one line of the command language.
    ///
    /// Words are separated by spaces or tabs and keywords are case-insensitive.
    /// A `#` at the start of a word begins a comment that runs to the end of the line.
    ///
    ///     1 | 2 | 3 | 4 | snare | bass | tambourine | maraca  [VELOCITY 0-127]
    ///     play | pause | toggle | next | prev | stop | pick | now | quit
    ///     seek TIME             repeat none|one|all       shuffle off|songs|albums
    ///     random [GENRE...]     session ambient|soloambient|playback [mix|duck]
    ///     env call-begin | call-end [resume] | unplug | plug | silent on|off | other-audio on|off
    ///     quantize off|on|1/4|1/8|1/16
    ///     place PAD X Y Z | place PAD off      turn DEGREES      hrtf on|off
    ///     reverb PRESET|off     occlude PAD DB     menu on|off
    ///     intensity 0…1         section NAME       stinger
    ///     bank FILE             event NAME         pad N EVENT
    ///     geometry FILE.obj|off      door NAME open|close|AMOUNT      listener X Y Z      map
    ///     wait DURATION
    ///
    /// `place` puts a pad (by name or number) at a point in metres, each
    /// coordinate a decimal within ±``maximumPlacement`` (`place snare 3 0 0` is
    /// 3 m to the right); `off` puts it back in 2D. `turn` sets the listener's
    /// heading in degrees, within ±``maximumTurn``: positive turns right, 0 faces -Z.
    ///
    /// DURATION and TIME are `1.5` or `1.5s` (seconds), `250ms`, `1:05` or
    /// `1:02:03` (with an optional `.fraction`), with at most microsecond
    /// precision; `wait` goes up to ``maximumWait`` and `seek` up to ``maximumSeek``.
    ///
    /// The work is bounded by ``maximumLineLength`` whatever the input: any
    /// string, including lossily decoded binary, either parses or throws.
    ///
    /// - Parameter line: One line, without its newline.
    /// - Returns: The command, or nil for a blank line or a comment.
    /// - Throws: ``DrumpadCommandError`` naming what was expected.
    public static func parse(_ line: String) throws(DrumpadCommandError) -> DrumpadCommand? {
        let bytes = line.utf8
        if bytes.count > maximumLineLength {
            // A long comment is still a comment; anything else is refused unread.
            if bytes.prefix(maximumLineLength).first(where: { !isSpace($0) }) == UInt8(ascii: "#") { return nil }
            throw DrumpadCommandError(.lineTooLong(bytes.count))
        }
        var words: [String] = []
        for word in bytes.split(whereSeparator: isSpace) {
            if word.first == UInt8(ascii: "#") { break }
            words.append(String(decoding: word, as: UTF8.self))
        }
        guard let first = words.first else { return nil }
        return try command(first, Array(words.dropFirst()))
    }

    private static func command(_ word: String, _ arguments: [String]) throws(DrumpadCommandError) -> DrumpadCommand {
        let lowercased = asciiLowercased(word)
        let keyword = commandAliases[lowercased] ?? lowercased
        func bad(_ expected: String) -> DrumpadCommandError {
            DrumpadCommandError(
                .badArguments(
                    command: keyword, expected: expected,
                    got: excerpt(arguments.joined(separator: " "))))
        }
        func none(_ command: DrumpadCommand) throws(DrumpadCommandError) -> DrumpadCommand {
            guard arguments.isEmpty else { throw bad("no arguments") }
            return command
        }
        /// The single argument, lowercased, or nil when there is none; more than one is an error.
        func single(_ expected: String) throws(DrumpadCommandError) -> String? {
            guard arguments.count <= 1 else { throw bad(expected) }
            return arguments.first.map(asciiLowercased)
        }

        let number = keyword.utf8.count == 1 && keyword.utf8.allSatisfy(isDigit) ? Int(keyword) : nil
        if let pad = Pad(rawValue: keyword) ?? number.flatMap(Pad.init(number:)) {
            let expected = "an optional velocity 0-\(Pad.maximumVelocity)"
            guard let word = try single(expected) else { return .pad(pad, velocity: Pad.maximumVelocity) }
            guard word.utf8.count <= 3, word.utf8.allSatisfy(isDigit), let velocity = Int(word),
                velocity <= Pad.maximumVelocity
            else { throw bad(expected) }
            return .pad(pad, velocity: velocity)
        }
        // A word missing from the table is unknown even if a case below handles it, so the table stays whole.
        guard commandWords.contains(keyword) else {
            throw DrumpadCommandError(.unknownCommand(excerpt(word, limit: 12)))  // quoted as typed
        }
        switch keyword {
        case "play": return try none(.play)
        case "pause": return try none(.pause)
        case "toggle": return try none(.toggle)
        case "next": return try none(.next)
        case "prev": return try none(.previous)
        case "stop": return try none(.stop)
        case "pick": return try none(.pick)
        case "now": return try none(.nowPlaying)
        case "quit": return try none(.quit)
        case "seek":
            let expected = "a time like 1:23, 83, 83.5s or 500ms, at most 24 hours"
            guard arguments.count == 1, let time = duration(arguments[0]), time <= maximumSeek
            else { throw bad(expected) }
            return .seek(time)
        case "wait":
            let expected = "a duration like 1.5, 1.5s, 250ms or 1:05, at most 10 minutes"
            guard arguments.count == 1, let time = duration(arguments[0]), time <= maximumWait
            else { throw bad(expected) }
            return .wait(time)
        case "repeat":
            let expected = "none, one or all"
            guard let word = try single(expected), let mode = RepeatMode(rawValue: word) else { throw bad(expected) }
            return .repeatMode(mode)
        case "shuffle":
            let expected = "off, songs or albums"
            guard let word = try single(expected), let mode = ShuffleMode(rawValue: word) else { throw bad(expected) }
            return .shuffle(mode)
        case "random":
            // A genre is shown back to the person: no control characters (escape sequences) in it.
            guard arguments.allSatisfy({ $0.unicodeScalars.allSatisfy(isPrintable) }) else {
                throw bad("an optional genre name, like Rock")
            }
            return .random(genre: arguments.isEmpty ? nil : arguments.joined(separator: " "))
        case "quantize":
            let expected = "off, on, 1/4, 1/8 or 1/16"
            guard let word = try single(expected), let grid = Quantize(word: word) else { throw bad(expected) }
            return .quantize(grid)
        case "session":
            let expected = "ambient, soloambient, or playback followed by an optional mix or duck"
            guard let word = arguments.first.map(asciiLowercased), let category = SessionCategory(rawValue: word),
                arguments.count <= 2
            else { throw bad(expected) }
            guard arguments.count == 2 else { return .session(category, nil) }
            guard category == .playback, let option = SessionOption(rawValue: asciiLowercased(arguments[1]))
            else { throw bad(expected) }
            return .session(category, option)
        case "place":
            let expected = "a pad (1-4 or a name) and X Y Z in metres within ±\(Self.number(maximumPlacement)), or off"
            guard arguments.count == 2 || arguments.count == 4, let pad = pad(named: arguments[0])
            else { throw bad(expected) }
            if arguments.count == 2 {
                guard asciiLowercased(arguments[1]) == "off" else { throw bad(expected) }
                return .place(pad, nil)
            }
            guard let x = decimal(arguments[1], within: maximumPlacement),
                let y = decimal(arguments[2], within: maximumPlacement),
                let z = decimal(arguments[3], within: maximumPlacement)
            else { throw bad(expected) }
            return .place(pad, Audio3DPoint(x: x, y: y, z: z))
        case "geometry":
            let expected = "an OBJ file's path (no spaces), or off"
            guard arguments.count == 1, arguments[0].unicodeScalars.allSatisfy(isPrintable) else { throw bad(expected) }
            return .geometry(asciiLowercased(arguments[0]) == "off" ? nil : arguments[0])
        case "door":
            let expected = "a door's name and open, close or an amount from 0 to 1"
            guard arguments.count == 2, arguments[0].unicodeScalars.allSatisfy(isPrintable) else { throw bad(expected) }
            switch asciiLowercased(arguments[1]) {
            case "open": return .door(arguments[0], 1)
            case "close", "closed": return .door(arguments[0], 0)
            default:
                guard let amount = decimal(arguments[1], within: 1), amount >= 0 else { throw bad(expected) }
                return .door(arguments[0], amount)
            }
        case "listener":
            let expected = "X Y Z in metres within ±\(Self.number(maximumPlacement))"
            guard arguments.count == 3, let x = decimal(arguments[0], within: maximumPlacement),
                let y = decimal(arguments[1], within: maximumPlacement),
                let z = decimal(arguments[2], within: maximumPlacement)
            else { throw bad(expected) }
            return .listener(Audio3DPoint(x: x, y: y, z: z))
        case "turn":
            let expected = "a heading in degrees within ±\(Self.number(maximumTurn)), like 90 or -45"
            guard arguments.count == 1, let degrees = decimal(arguments[0], within: maximumTurn)
            else { throw bad(expected) }
            return .turn(degrees)
        case "hrtf":
            let expected = "on or off"
            switch try single(expected) {
            case "on": return .hrtf(true)
            case "off": return .hrtf(false)
            default: throw bad(expected)
            }
        case "reverb":
            let names = AudioEnvironmentReverbParameters.presetNames
            let expected = "off or one of the \(names.count) reverb presets, like hangar, cave or bathroom"
            guard let word = try single(expected) else { throw bad(expected) }
            if word == "off" { return .reverb(nil) }
            guard names.contains(word) else { throw bad(expected) }
            return .reverb(word)
        case "occlude":
            let expected = "a pad (1-4 or a name) and a level in dB from -100 to 0"
            guard arguments.count == 2, let pad = pad(named: arguments[0]),
                let decibels = decimal(arguments[1], within: 100), decibels <= 0
            else { throw bad(expected) }
            return .occlude(pad, decibels)
        case "menu":
            let expected = "on or off"
            switch try single(expected) {
            case "on": return .menu(true)
            case "off": return .menu(false)
            default: throw bad(expected)
            }
        case "intensity":
            let expected = "a level from 0 to 1"
            guard let word = try single(expected), let value = decimal(word, within: 1), value >= 0
            else { throw bad(expected) }
            return .intensity(value)
        case "section":
            let expected = "a section name, like explore or combat"
            guard let word = try single(expected) else { throw bad(expected) }
            return .section(asciiLowercased(word))
        case "stinger": return try none(.stinger)
        case "map": return try none(.map)
        case "bank":
            // A path keeps its case and its spaces (words rejoined with one space).
            guard !arguments.isEmpty else { throw bad("a sound bank file") }
            return .bank(arguments.joined(separator: " "))
        case "event":
            guard arguments.count == 1 else { throw bad("one event name from the bank") }
            return .event(arguments[0])
        case "pad":
            let expected = "a pad 1-4 (or its name) and an event name from the bank"
            guard arguments.count == 2, let pad = pad(named: arguments[0]) else { throw bad(expected) }
            return .mapPad(pad, event: arguments[1])
        case "env":
            return .environment(try environment(arguments.map(asciiLowercased), bad))
        default:
            throw DrumpadCommandError(.unknownCommand(excerpt(word, limit: 12)))  // quoted as typed
        }
    }

    /// A pad by name or number, as typed.
    private static func pad(named word: String) -> Pad? {
        let name = asciiLowercased(word)
        let number = name.utf8.count == 1 && name.utf8.allSatisfy(isDigit) ? Int(name) : nil
        return Pad(rawValue: name) ?? number.flatMap(Pad.init(number:))
    }

    /// A signed decimal (`3`, `-0.5`, `+2.25`, `.5`) within ±`limit`, or nil.
    /// Only digits, one point and a leading sign: no exponents, `nan` or `inf`.
    private static func decimal(_ word: String, within limit: Float) -> Float? {
        var digits = Substring(word)
        if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
        let points = digits.utf8.filter { $0 == UInt8(ascii: ".") }.count
        guard word.utf8.count <= 32, points <= 1, digits.utf8.contains(where: isDigit),
            digits.utf8.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: ".") }),
            let value = Float(word), value.isFinite, abs(value) <= limit
        else { return nil }
        return value == 0 ? 0 : value  // no -0 to print back
    }

    private static func environment(_ words: [String], _ bad: (String) -> DrumpadCommandError)
        throws(DrumpadCommandError) -> EnvironmentEvent
    {
        let expected = "call-begin, call-end [resume], unplug, plug, silent on|off or other-audio on|off"
        func onOff(_ word: String) -> Bool? { word == "on" ? true : word == "off" ? false : nil }
        switch (words.first, words.count) {
        case ("call-begin", 1): return .callBegan
        case ("call-end", 1): return .callEnded(resume: false)
        case ("call-end", 2) where words[1] == "resume": return .callEnded(resume: true)
        case ("unplug", 1): return .unplug
        case ("plug", 1): return .plug
        case ("silent", 2): if let on = onOff(words[1]) { return .silent(on) }
        case ("other-audio", 2): if let on = onOff(words[1]) { return .otherAudio(on) }
        default: break
        }
        throw bad(expected)
    }

    // MARK: Durations

    /// A non-negative duration in the grammar of ``parse(_:)``, exactly, or nil.
    static func duration(_ word: String) -> MediaTime? {
        let text = asciiLowercased(word)
        guard text.utf8.count <= 32 else { return nil }
        if text.contains(":") { return clockTime(text) }
        // Milliseconds with at most three decimals are whole microseconds: exact.
        if text.hasSuffix("ms") { return decimal(text.dropLast(2), fractionDigits: 3).map { micros($0 / 1000) } }
        return decimal(text.hasSuffix("s") ? text.dropLast() : Substring(text), fractionDigits: 6).map(micros)
    }

    /// `m:ss` or `h:mm:ss`: later fields are two digits below 60, the last may have a fraction.
    private static func clockTime(_ text: String) -> MediaTime? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2 || fields.count == 3 else { return nil }
        var seconds: Int64 = 0
        for (index, field) in fields.dropLast().enumerated() {
            guard index == 0 || field.utf8.count == 2, let value = decimal(field, fractionDigits: 0),
                index == 0 || value < 60 * 1_000_000
            else { return nil }
            seconds = seconds * 60 + value / 1_000_000
        }
        let last = fields[fields.count - 1]
        guard last.utf8.prefix(while: isDigit).count == 2, let value = decimal(last, fractionDigits: 6),
            value < 60 * 1_000_000
        else { return nil }
        // At most 9 digits in the first field: under 3.6e18 microseconds, inside Int64.
        return micros(seconds * 60 * 1_000_000 + value)
    }

    /// `DIGITS[.DIGITS]` as millionths (of a second, or of whatever unit the caller reads):
    /// at most 9 whole digits and `fractionDigits` fraction digits.
    private static func decimal(_ text: Substring, fractionDigits: Int) -> Int64? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count == 2 ? parts[1] : ""
        guard !whole.isEmpty, whole.utf8.count <= 9, whole.utf8.allSatisfy(isDigit),
            parts.count == 1 || !fraction.isEmpty, fraction.utf8.count <= fractionDigits,
            fraction.utf8.allSatisfy(isDigit), let w = Int64(whole)
        else { return nil }
        let padded = fraction + String(repeating: "0", count: 6 - fraction.utf8.count)
        guard let f = Int64(padded) else { return nil }
        return w * 1_000_000 + f
    }

    private static func micros(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1_000_000) }

    // MARK: Bytes

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// Lowercases ASCII letters only, so no exotic case mapping can change a word's length.
    static func asciiLowercased(_ word: String) -> String {
        String(decoding: word.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Not a C0 or C1 control character, DEL, or a Unicode line or paragraph separator.
    private static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x20 && scalar.value != 0x7F && !(0x80...0x9F).contains(scalar.value)
            && !(0x2028...0x2029).contains(scalar.value)
    }

    /// At most `limit` characters of `text`, control characters shown as `?`, for an error line.
    static func excerpt(_ text: String, limit: Int = 40) -> String {
        var out = ""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            if index == limit {
                out += "..."
                break
            }
            out.unicodeScalars.append(isPrintable(scalar) ? scalar : "?")
        }
        return out
    }
}
