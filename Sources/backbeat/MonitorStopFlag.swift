import Foundation
import Synchronization

/// A flag that SIGINT and SIGTERM set, so a mode ends in its own time
/// (restoring the terminal first): dispatch sources, no code in a signal
/// handler.
final class MonitorStopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    // Kept alive while the flag is: a cancelled source no longer delivers.
    private let sources = Mutex<[SignalSource]>([])

    /// The sources are Dispatch objects, safe to hold from any thread.
    private struct SignalSource: @unchecked Sendable {
        var source: any DispatchSourceSignal
    }

    /// Whether a signal came.
    var isSet: Bool { flag.load(ordering: .relaxed) }

    /// Sets the flag by hand (a `q` key).
    func set() { flag.store(true, ordering: .relaxed) }

    /// A flag that SIGINT and SIGTERM set from now on, instead of ending the process.
    static func onSignals() -> MonitorStopFlag {
        let stop = MonitorStopFlag()
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak stop] in stop?.set() }
            source.resume()
            stop.sources.withLock { $0.append(SignalSource(source: source)) }
        }
        return stop
    }
}
