import BackbeatMedia
import BackbeatSupport
import BackbeatTelemetry
import Logging

// The one door to the `backbeat` logger. A line is decided under the engine
// lock, where the problem is seen, and written outside it, in order with the
// events, where events are delivered: never on the thread that feeds OpenAL.
// When all is well nothing here runs but a switch over each event posted.

extension AudioEngine {
    /// The logger the engine's problems go to; nil (the default) logs through
    /// `Logger(label: "backbeat")`, made by the logging system at each line.
    package var logger: Logger? {
        get { withLock { problemLog.logger } }
        set { withLock { problemLog.logger = newValue } }
    }

    /// Logs a problem a developer should hear, with the lock held; written
    /// once unlocked. The same `key` logs at most one line per 5 s of engine
    /// time; the next line says how many times it came meanwhile.
    ///
    /// - Parameters:
    ///   - level: How bad it is.
    ///   - message: One line naming what went wrong, the file or sound, and why.
    ///   - key: What the problem is about, such as `load:snare`.
    ///   - problem: Its kind, as the line's `problem` metadata (`loadFailed`,
    ///     `voiceRefused`), for a log handler that routes or filters lines.
    package func logLocked(_ level: Logger.Level, _ message: String, key: String, problem: String) {
        preconditionLocked()
        // A monitor hears of every problem, not one a 5 s: its client drops lines it cannot keep up with.
        if let server = telemetryServer, server.clientCount > 0, let kind = Self.telemetryKind(ofProblem: problem) {
            let subject = key.firstIndex(of: ":").map { String(key[key.index(after: $0)...]) }
            postTelemetryLocked(
                TelemetryEvent(time: telemetryTimeLocked, event: kind, name: subject, message: message))
        }
        let interval = EngineLog.interval.frames(atSampleRate: sampleRate)
        guard let unlogged = problemLog.admit(key, at: currentFrameLocked, interval: interval) else { return }
        let line = unlogged == 0 ? message : "\(message) (and \(unlogged) more since the last line about it)"
        let logger = problemLog.logger
        postLocked(callback: {
            (logger ?? Logger(label: EngineLog.label)).log(
                level: level, "\(line)", metadata: ["problem": "\(problem)"], source: EngineLog.source)
        })
    }

    /// A sound that failed to load: one error line naming its file and the
    /// reason. A voice of it refused for that adds no second line.
    ///
    /// - Parameters:
    ///   - sound: The sound's name.
    ///   - error: Why it failed; its description names the file.
    package func logLoadFailureLocked(of sound: String, _ error: BackbeatError) {
        logLocked(
            .error, "Sound \"\(sound)\" failed to load: \(error)", key: "load:\(sound)",
            problem: "loadFailed")
    }

    /// The event line a logged problem is also sent to monitors as; nil for
    /// a refused voice, which the voice pool reports to monitors itself.
    ///
    /// - Parameter problem: The problem's kind, as ``logLocked(_:_:key:problem:)`` takes it.
    /// - Returns: The event's kind, or nil to send none.
    static func telemetryKind(ofProblem problem: String) -> TelemetryEvent.Kind? {
        switch problem {
        case "loadFailed", "itemFailed": .loadFailed
        case "underrun": .underrun
        case "outputLost": .deviceLost
        case "outputChanged": .deviceChanged
        case "reloadFailed": .reloadFailed
        case "bankReloaded": .bankReloaded
        case "soundReloaded": .soundReloaded
        default: nil
        }
    }

    /// The line an event that tells of a problem logs; the others log nothing.
    func logProblemLocked(_ event: PlaybackEvent) {
        switch event {
        case .voiceRefused(_, let sound, .loadFailed(let error)):
            logLoadFailureLocked(of: sound, error)
        case .voiceRefused(_, let sound, .allVoicesMoreImportant):
            logLocked(
                .warning, "Voice of \"\(sound)\" refused: every voice is busy with a more important one",
                key: "busy:\(sound)", problem: "voiceRefused")
        case .voiceRefused(_, let sound, .retriggeredTooSoon):
            // The game asked for it (the sound's minimum retrigger interval): only for debugging.
            logLocked(
                .debug, "Voice of \"\(sound)\" refused: played again within its minimum retrigger interval",
                key: "retrigger:\(sound)", problem: "voiceRefused")
        case .outputLost(let device, let replacement, let reason):
            let then =
                replacement.map { "playing on \"\($0)\" now" }
                ?? "rendering unheard until a device can be opened again"
            logLocked(
                .warning, "Output device \"\(device)\" lost (\(reason)); \(then)", key: "lost:\(device)",
                problem: "outputLost")
        case .outputChanged(let device, let previous, let reason):
            let from = previous.map { " from \"\($0)\"" } ?? ""
            logLocked(
                .info, "Output moved to \"\(device)\"\(from) (\(reason))", key: "changed:\(device)",
                problem: "outputChanged")
        case .voiceStarted, .voiceFinished, .voiceStolen, .voiceVirtualized, .voiceRealized, .soundLoaded,
            .soundEvicted, .fadeCompleted:
            return
        }
    }
}
