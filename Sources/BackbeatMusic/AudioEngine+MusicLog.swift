import BackbeatEngine
import BackbeatSupport
import Logging

// Music's lines for the `backbeat` logger, through the engine's one door
// (`logLocked`): decided under the engine lock, written outside it.

extension AudioEngine {
    /// A song that could not be opened or read was skipped (a queue drops it
    /// and plays on): one error line naming its file and the reason.
    ///
    /// - Parameter error: Why it could not be played; its description names the file.
    func logSkippedLocked(_ error: BackbeatError) {
        let file = error.url.map { $0.isFileURL ? $0.path : $0.absoluteString } ?? error.operation
        logLocked(
            .error, "Skipped music that cannot be played: \(error)", key: "music:\(file)",
            problem: "itemFailed")
    }

    /// A music stream ran dry before its decoder caught up (a real-time
    /// output only): a warning, at most one line per 5 s of engine time.
    ///
    /// - Parameter total: The stream's underruns so far.
    func logUnderrunLocked(_ total: Int) {
        logLocked(
            .warning,
            "Music underrun: a stream ran dry before its decoder caught up (\(total) so far); "
                + "the machine may be too busy for the output's latency",
            key: "underrun:music", problem: "underrun")
    }
}
