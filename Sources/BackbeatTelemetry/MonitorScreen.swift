import Foundation

/// The live screen of `backbeat monitor PID`, drawn from a snapshot: pure
/// text, so what a designer sees is tested without a terminal or a game.
///
/// From the top: a title line, the engine's figures, the buses with level
/// meters (the selected one marked and highlighted), the game parameters and
/// mix snapshots, the music players, then as many voices as fit, loudest
/// first, with a count of those left out, and the keys at the bottom.
package struct MonitorScreen: Sendable {
    /// The newest snapshot, nil until the first arrives.
    package var snapshot: TelemetrySnapshot?
    /// The selected bus, by name; nil or a name the snapshot lacks selects the first bus.
    package var selectedBus: String?
    /// Who is being watched: the process name and its PID.
    package var title: String
    /// One line under the keys: the game's answer to the last key, or an error.
    package var status: String?

    /// The lowest level a meter shows; quieter reads as an empty bar.
    package static let floorDB = -60.0

    /// - Parameters:
    ///   - title: who is being watched, such as `drumpad (PID 1234)`.
    ///   - snapshot: the newest snapshot, if one has arrived.
    ///   - selectedBus: the selected bus's name.
    ///   - status: a line to show under the keys.
    package init(
        title: String, snapshot: TelemetrySnapshot? = nil, selectedBus: String? = nil, status: String? = nil
    ) {
        self.title = title
        self.snapshot = snapshot
        self.selectedBus = selectedBus
        self.status = status
    }

    /// One line of the screen: its text, already cut to the width, and
    /// whether it is drawn highlighted (the selected bus).
    package struct Line: Sendable, Equatable {
        package var text: String
        package var highlighted: Bool

        package init(_ text: String, highlighted: Bool = false) {
            self.text = text
            self.highlighted = highlighted
        }
    }

    /// The bus the keys act on: the selected one, or the first.
    package var currentBus: TelemetrySnapshot.Bus? {
        guard let buses = snapshot?.buses, !buses.isEmpty else { return nil }
        return buses.first { $0.name == selectedBus } ?? buses[0]
    }

    /// The screen's lines for a terminal of this size: at most `height`
    /// lines, none longer than `width` characters.
    ///
    /// - Parameters:
    ///   - width: the terminal's columns (at least 1).
    ///   - height: the terminal's rows (at least 1).
    /// - Returns: the lines, top first.
    package func lines(width: Int, height: Int) -> [Line] {
        let width = max(1, width)
        let height = max(1, height)
        var top: [Line] = []
        var bottom: [Line] = [
            Line("keys: up/down (k/j) select a bus   m mute   s solo   +/- volume 1 dB   q quit")
        ]
        if let status { bottom.append(Line(Self.clean(status))) }
        guard let snapshot else {
            top.append(Line("backbeat monitor  \(title)"))
            top.append(Line("waiting for the first snapshot..."))
            return Self.fit(top, [], bottom, width: width, height: height)
        }
        let engine = snapshot.engine
        top.append(
            Line(
                "backbeat monitor  \(Self.clean(title))  \(Self.clean(engine.output)) \(engine.sampleRate) Hz  "
                    + "time \(Self.clock(snapshot.time))"))
        top.append(
            Line(
                "sources \(engine.sourcesInUse)/\(engine.sourcesTotal)  underruns \(engine.underruns)  "
                    + "update CPU \(Self.fixed(engine.updateCPUPercent, 1)) %"))
        top.append(Line(""))
        top += busLines(snapshot, width: width)
        if !snapshot.parameters.isEmpty || !snapshot.snapshots.isEmpty {
            top.append(Line(""))
            var items = snapshot.parameters.map { "\(Self.clean($0.name)) \(Self.fixed($0.current, 2))" }
            items += snapshot.snapshots.map { "\(Self.clean($0.name)) \($0.active ? "on" : "off")" }
            top.append(Line("PARAMETERS & SNAPSHOTS  " + items.joined(separator: "   ")))
        }
        top.append(Line(""))
        top.append(Line("MUSIC"))
        if snapshot.music.isEmpty { top.append(Line("  (no music player)")) }
        for player in snapshot.music {
            let item = player.item.map { "\"\(Self.clean($0))\"" } ?? "-"
            top.append(
                Line(
                    "  " + Self.pad(Self.clean(player.kind), 9) + Self.pad(Self.clean(player.state), 12) + item
                        + "  " + Self.clock(player.time) + "  on " + Self.clean(player.bus)))
        }
        top.append(Line(""))
        let counts = snapshot.voiceCounts
        top.append(
            Line(
                "VOICES  \(counts.playing) playing, \(counts.virtual) virtual, \(counts.dormant) dormant, "
                    + "\(counts.stopping) stopping"))
        top.append(Line("  STATE     GAIN dB  NAME                      BUS         POSITION"))
        let voices = Self.sortedVoices(snapshot.voices)
        let room = height - top.count - bottom.count - 1
        var shown = voices
        var unlisted = counts.unlisted
        if room < voices.count + (unlisted > 0 ? 1 : 0) {
            // Keep one row for the count of what did not fit.
            shown = Array(voices.prefix(max(0, room - 1)))
            unlisted += voices.count - shown.count
        }
        var middle = shown.map { Line(Self.voiceLine($0)) }
        if unlisted > 0 { middle.append(Line("  ... and \(unlisted) more, quieter, not listed")) }
        return Self.fit(top + middle, [Line("")], bottom, width: width, height: height)
    }

    /// The whole screen as a terminal draws it: the cursor home, each line
    /// cleared to its end, the selected bus in reverse video, and the rest
    /// of the screen cleared. Drawing over the old screen instead of
    /// clearing it first keeps it from flickering.
    ///
    /// - Parameters:
    ///   - width: the terminal's columns.
    ///   - height: the terminal's rows.
    /// - Returns: the bytes to write, as a string.
    package func frame(width: Int, height: Int) -> String {
        var out = "\u{1B}[H"
        let lines = lines(width: width, height: height)
        for (index, line) in lines.enumerated() {
            if line.highlighted {
                out += "\u{1B}[7m" + line.text + String(repeating: " ", count: max(0, width - line.text.count))
                out += "\u{1B}[0m"
            } else {
                out += line.text + "\u{1B}[K"
            }
            if index < lines.count - 1 { out += "\r\n" }
        }
        return out + "\u{1B}[J"
    }

    private func busLines(_ snapshot: TelemetrySnapshot, width: Int) -> [Line] {
        let nameWidth = min(16, max(6, snapshot.buses.map { $0.name.count }.max() ?? 6))
        // The meter takes what the figures leave, between 10 and 40 columns.
        let fixed = 2 + nameWidth + 1 + 2 + 2 * 8 + 2 + 16 + 5
        let meterWidth = min(40, max(10, width - fixed))
        var lines = [
            Line(
                "  " + Self.pad("BUS", nameWidth) + " " + Self.pad("LEVEL", meterWidth + 2)
                    + "   PEAK     RMS  VOLUME")
        ]
        let current = currentBus?.name
        for bus in snapshot.buses {
            let selected = bus.name == current
            var text = (selected ? "> " : "  ") + Self.pad(Self.clean(bus.name), nameWidth) + " "
            text += Self.meter(peakDB: bus.peakDB, rmsDB: bus.rmsDB, width: meterWidth)
            text += Self.leftPad(Self.decibels(bus.peakDB), 8) + Self.leftPad(Self.decibels(bus.rmsDB), 8)
            text += "  " + Self.fixed(bus.volume, 2) + " (" + Self.decibels(Self.decibels(linear: bus.volume)) + " dB)"
            var marks: [String] = []
            if bus.muted { marks.append("MUTE") }
            if bus.soloed { marks.append("SOLO") }
            if bus.paused { marks.append("paused") }
            if !marks.isEmpty { text += "  " + marks.joined(separator: " ") }
            lines.append(Line(text, highlighted: selected))
        }
        return lines
    }

    /// A level meter: `#` up to the RMS level, `=` on to the peak, over
    /// ``floorDB`` to 0 dBFS, in brackets.
    ///
    /// - Parameters:
    ///   - peakDB: the peak level in dBFS.
    ///   - rmsDB: the RMS level in dBFS.
    ///   - width: the columns inside the brackets.
    /// - Returns: `width + 2` characters.
    package static func meter(peakDB: Double, rmsDB: Double, width: Int) -> String {
        func columns(_ db: Double) -> Int {
            guard db.isFinite else { return db > 0 ? width : 0 }
            let fraction = (min(0, max(floorDB, db)) - floorDB) / -floorDB
            return Int((fraction * Double(width)).rounded())
        }
        let peak = columns(peakDB)
        let rms = min(peak, columns(rmsDB))
        return "[" + String(repeating: "#", count: rms) + String(repeating: "=", count: peak - rms)
            + String(repeating: " ", count: width - peak) + "]"
    }

    /// Voices loudest first; voices equally loud by id, so the list holds still.
    package static func sortedVoices(_ voices: [TelemetrySnapshot.Voice]) -> [TelemetrySnapshot.Voice] {
        voices.sorted { ($0.gainDB, $1.id) > ($1.gainDB, $0.id) }
    }

    private static func voiceLine(_ voice: TelemetrySnapshot.Voice) -> String {
        let position =
            voice.position.map { p in "(" + p.map { fixed($0, 1) }.joined(separator: ", ") + ")" } ?? "2D"
        return "  " + pad(voice.state.rawValue, 9) + leftPad(decibels(voice.gainDB), 8) + "  "
            + pad(clean(voice.name), 25) + " " + pad(clean(voice.bus), 11) + " " + position
            + (voice.reason.map { "  " + clean($0) } ?? "")
    }

    /// Cuts every line to `width`, and drops middle lines (the voices, the
    /// music) before the keys when the screen is short.
    private static func fit(_ top: [Line], _ gap: [Line], _ bottom: [Line], width: Int, height: Int) -> [Line] {
        var lines = top
        if lines.count + gap.count + bottom.count <= height { lines += gap }
        lines = Array(lines.prefix(max(0, height - bottom.count))) + bottom.prefix(height)
        lines = Array(lines.prefix(height))
        return lines.map { Line(String($0.text.prefix(width)), highlighted: $0.highlighted) }
    }

    // MARK: - Formatting

    /// `text` with every control character (an escape sequence a game's
    /// file name could carry) shown as `?`, so nothing the game sends can
    /// drive the terminal.
    ///
    /// - Parameter text: a name or message from the game.
    /// - Returns: text safe to print.
    package static func clean(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
    }

    /// A level in dB with one decimal, or `-inf` at and below −120 dB.
    ///
    /// - Parameter db: the level.
    /// - Returns: such as `-6.0` or `-inf`.
    package static func decibels(_ db: Double) -> String {
        guard db.isFinite else { return db > 0 ? "+inf" : "-inf" }
        return db <= -120 ? "-inf" : fixed(db, 1)
    }

    /// A linear gain in dB (−120 for silence).
    ///
    /// - Parameter linear: the gain, 1 for unity.
    /// - Returns: its level in dB.
    package static func decibels(linear: Double) -> Double {
        linear > 1e-6 ? 20 * log10(linear) : -120
    }

    static func fixed(_ value: Double, _ places: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        let text = String(format: "%.\(places)f", value)
        return text.hasPrefix("-") && Double(text) == 0 ? String(text.dropFirst()) : text
    }

    /// Seconds as `m:ss.t`.
    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 1e9 else { return "-" }
        let tenths = Int((seconds * 10).rounded(.down))
        let minutes = tenths / 600
        let rest = tenths % 600
        return "\(minutes):" + (rest < 100 ? "0" : "") + "\(rest / 10).\(rest % 10)"
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? String(text.prefix(width)) : text + String(repeating: " ", count: width - text.count)
    }

    static func leftPad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
