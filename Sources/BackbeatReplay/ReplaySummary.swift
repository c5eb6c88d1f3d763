/// The `--summary` timeline: what happened in each second of the capture,
/// one line a second (seconds with nothing in them are left out).
package struct ReplaySummary: Sendable {
    private var second = 0
    private var counts: [String: Int] = [:]
    private var order: [String] = []
    /// The lines so far, one per second with something in it.
    package private(set) var lines: [String] = []

    /// Moves the timeline to `seconds`, closing the seconds before it.
    ///
    /// - Parameter seconds: Seconds from the capture's start.
    mutating func at(seconds: Double) {
        let now = Int(max(0, min(seconds, 1e9)).rounded(.down))
        if now != second {
            flush()
            second = now
        }
    }

    /// Counts `event` in the current second.
    ///
    /// - Parameter event: What happened, such as `voice snare.wav`.
    mutating func note(_ event: String) {
        if counts[event] == nil { order.append(event) }
        counts[event, default: 0] += 1
    }

    /// Closes the current second and returns every line.
    package mutating func finish() -> [String] {
        flush()
        return lines
    }

    private mutating func flush() {
        guard !order.isEmpty else { return }
        let items = order.map { counts[$0]! > 1 ? "\($0) ×\(counts[$0]!)" : $0 }
        let label = String(second)
        lines.append(
            String(repeating: " ", count: max(0, 5 - label.count)) + label + " s  " + items.joined(separator: ", "))
        counts.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
    }

    /// `seconds` with three decimals, for messages.
    ///
    /// - Parameter seconds: A time in seconds.
    package static func format(seconds: Double) -> String {
        let millis = Int64((max(-1e12, min(seconds, 1e12)) * 1000).rounded())
        let sign = millis < 0 ? "-" : ""
        let fraction = String(abs(millis) % 1000)
        return sign + String(abs(millis) / 1000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
