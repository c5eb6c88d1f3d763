import Logging
import Synchronization

/// Records every line logged through its ``logger``, at every level, for a
/// test to check. Each test makes its own and gives its logger to the engine
/// under test, so suites running side by side in one process never see each
/// other's lines (`LoggingSystem.bootstrap` is once per process).
final class LogRecorder: Sendable {
    struct Entry: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: Logger.Metadata
    }

    private let recorded = Mutex<[Entry]>([])

    /// The lines so far, in order.
    var entries: [Entry] { recorded.withLock { $0 } }

    /// A `backbeat` logger that records here, at every level.
    var logger: Logger {
        var logger = Logger(label: "backbeat") { _ in Handler(recorder: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ entry: Entry) { recorded.withLock { $0.append(entry) } }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.append(
                Entry(
                    level: event.level, message: event.message.description,
                    metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
        }
    }
}
