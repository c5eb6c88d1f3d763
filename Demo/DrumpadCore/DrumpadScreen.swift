import Backbeat
import Foundation

/// The demo's terminal screen as lines of text: pads, music, level meter,
/// session, the latest messages and the line being typed. Pure, so it is
/// tested without a terminal; the executable only writes it out.
public enum DrumpadScreen {
    /// How long a pad stays lit after it is heard.
    public static let flash = MediaTime(value: 150, timescale: 1_000)

    /// The screen for `status` at engine time `now`, at most `width` columns wide.
    /// ANSI reverse video marks lit pads.
    public static func render(_ status: DrumpadStatus, now: MediaTime, typing: String, width: Int) -> [String] {
        let width = max(40, min(width, 200))
        func fit(_ line: String) -> String { line.count <= width ? line : String(line.prefix(width - 1)) + "…" }
        var lines: [String] = []
        lines.append(
            fit(
                "Backbeat drum pad   \(clock(now))   session: \(status.session)   route: \(status.route)   quantize: \(status.quantize.rawValue)"
            ))
        lines.append("")
        var pads = "  "
        for pad in DrumpadCommand.Pad.allCases {
            let label = " \(pad.number) \(pad.rawValue) "
            let lit = status.lastHit[pad].map { now >= $0 && now - $0 < flash } ?? false
            pads += (lit ? "\u{1B}[7m[\(label)]\u{1B}[0m" : "[\(label)]") + "  "
        }
        lines.append(pads)
        // Stays after the flash: which pad was heard last, when, and how many so far.
        if let last = status.lastPad {
            lines.append(fit("  last pad: \(last.pad.rawValue) at \(clock(last.time)) (\(status.padsHeard) heard)"))
        } else {
            lines.append("  last pad: none yet")
        }
        lines.append(fit("  music: \(status.playbackState?.rawValue ?? "not available")"))
        lines.append(
            fit("  level music: \(status.section ?? "off")   intensity: \(DrumpadCommand.number(status.intensity))"))
        if let item = status.nowPlaying {
            lines.append(fit("  now playing: \(item.title) — \(item.album) — \(item.artist) (\(item.artwork))"))
        } else {
            lines.append("  now playing: nothing")
        }
        lines.append("  level: " + meter(status.level, width: min(40, width - 20)))
        if !status.levelMap.isEmpty {
            lines += status.levelMap.map(fit)
        } else if !status.placements.isEmpty {
            lines += map(status.placements, heading: status.heading)
        }
        lines.append("")
        for message in status.messages { lines.append(fit("  " + DrumpadCommand.excerpt(message, limit: width))) }
        for _ in status.messages.count..<DrumpadStatus.maximumMessages { lines.append("") }
        lines.append("")
        lines.append(fit("keys: 1-4 pads, space play/pause, type a command and Enter (quit, Ctrl-C)"))
        lines.append(fit("> " + DrumpadCommand.excerpt(typing, limit: width - 3)))
        return lines
    }

    /// A top-down map of the placed pads around the listener, 4 m each way:
    /// -Z (straight ahead at `turn 0`) is up, a column is half a metre and a
    /// row a metre. The listener is the arrow in the middle, pointing where
    /// it faces (`^` `>` `v` `<`, to the nearest quarter turn); a pad is its
    /// number, on the edge when it is farther away.
    public static func map(_ placements: [DrumpadCommand.Pad: Audio3DPoint], heading: Float) -> [String] {
        let columns = 17
        let rows = 9
        let middle = (row: rows / 2, column: columns / 2)
        var grid = [[Character]](repeating: [Character](repeating: ".", count: columns), count: rows)
        let quarter = heading.isFinite ? Int((heading / 90).rounded()) : 0
        grid[middle.row][middle.column] = ["^", ">", "v", "<"][((quarter % 4) + 4) % 4]
        func cell(_ metres: Float, perCell: Float, middle: Int, count: Int) -> Int {
            // Bounded before converting: a far pad sits on the edge.
            let offset = metres.isFinite ? min(max(metres / perCell, -1_000), 1_000).rounded() : 0
            return min(max(middle + Int(offset), 0), count - 1)
        }
        for pad in DrumpadCommand.Pad.allCases {
            guard let point = placements[pad] else { continue }
            let row = cell(point.z, perCell: 1, middle: middle.row, count: rows)
            let column = cell(point.x, perCell: 0.5, middle: middle.column, count: columns)
            grid[row][column] = Character(String(pad.number))
        }
        return ["  map (from above, -Z up, 1 m per row; pads by number, you are the arrow):"]
            + grid.map { "    |" + String($0) + "|" }
    }

    /// A bar of `width` cells for a 0...1 level, on a decibel scale from -48 dB.
    public static func meter(_ level: Float?, width: Int) -> String {
        guard let level, level.isFinite else { return "[" + String(repeating: " ", count: width) + "] -" }
        let decibels = level > 0 ? 20 * log10(Double(level)) : -96
        let filled = Int((max(0, min(1, (decibels + 48) / 48)) * Double(width)).rounded())
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
            + (decibels > -96 ? " \(Int(decibels.rounded())) dB" : " -inf dB")
    }

    static func clock(_ time: MediaTime) -> String {
        let tenths = time.converted(to: 10, rounding: .down).value
        return "\(tenths / 600):" + (tenths / 10 % 60 < 10 ? "0" : "") + "\(tenths / 10 % 60).\(tenths % 10)"
    }
}
