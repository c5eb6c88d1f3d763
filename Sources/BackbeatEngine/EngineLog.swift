import BackbeatMedia
import Logging

/// Where an engine logs the problems a developer should hear, and which it
/// logged when: a problem repeated a thousand times a second (a voice refused
/// every frame) logs one line per ``interval`` of engine time, not a thousand.
///
/// Engine time, not the wall clock, spaces the lines, so an offline render
/// logs the same lines on every run. Touched only under the engine lock.
struct EngineLog {
    /// The label of every line Backbeat logs.
    static let label = "backbeat"
    /// The module every line says it comes from (the product a game links).
    static let source = "Backbeat"
    /// The least engine time between two lines about the same problem.
    static let interval = MediaTime(seconds: 5)

    /// The logger the game or a test gave; nil: a `backbeat` logger made by
    /// the logging system at each line, so that a `LoggingSystem.bootstrap`
    /// made after the engine opened still applies.
    var logger: Logger?

    /// Per problem: the frame its last line was logged at, and the times it
    /// came again since, unlogged.
    private var lastLine: [String: (frame: Int64, unlogged: Int)] = [:]

    /// Whether the problem `key`, seen at engine frame `frame`, gets a line:
    /// nil when one was logged less than `interval` frames ago (it is counted),
    /// else how many times it came since the last line without one.
    ///
    /// - Parameters:
    ///   - key: What the problem is about, such as a sound's failed load.
    ///   - frame: The engine frame it happened at.
    ///   - interval: The frames between two lines about the same problem.
    /// - Returns: nil to log nothing; otherwise the times it went unlogged since its last line.
    mutating func admit(_ key: String, at frame: Int64, interval: Int64) -> Int? {
        if let last = lastLine[key], frame - last.frame < interval, frame >= last.frame {
            lastLine[key] = (last.frame, last.unlogged + 1)
            return nil
        }
        let unlogged = lastLine[key]?.unlogged ?? 0
        // Problems about sounds long gone must not pile up: forget those past their interval.
        if lastLine.count >= 1_024 { lastLine = lastLine.filter { frame - $0.value.frame < interval } }
        lastLine[key] = (frame, 0)
        return unlogged
    }
}
