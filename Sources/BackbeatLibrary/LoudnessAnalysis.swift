import BackbeatSupport
import Foundation
import GRDB

/// A background walk over the library that measures each item's EBU R128
/// loudness and true peak and stores them, so a player can normalise
/// loudness (like iTunes Sound Check). It never blocks the game: run it on a
/// background thread or task, watch its progress, cancel it at any time;
/// what was measured before cancelling is kept.
///
/// ```swift
/// let analysis = LoudnessAnalysis(library: library)
/// let task = Task.detached { try analysis.run() }
/// // later: analysis.fractionCompleted, analysis.cancel()
/// ```
public final class LoudnessAnalysis: Sendable {
    /// What a run did.
    public struct Report: Sendable, Equatable {
        /// Items measured and stored.
        public internal(set) var analyzed = 0
        /// Items that could not be decoded, with the reason.
        public internal(set) var failed: [ScanReport.Skipped] = []
        /// Whether the run stopped because it was cancelled.
        public internal(set) var wasCancelled = false
    }

    /// The library analysed.
    public let library: MediaLibrary
    /// Whether items already measured are measured again.
    public let reanalyze: Bool
    private let progress = LockedValueBox<(completed: Int, total: Int, cancelled: Bool)>((0, 0, false))

    /// An analysis of the items of `library` not yet measured (all of them with `reanalyze`).
    ///
    /// - Parameters:
    ///   - library: The library whose items to measure.
    ///   - reanalyze: Whether items already measured are measured again.
    public init(library: MediaLibrary, reanalyze: Bool = false) {
        self.library = library
        self.reanalyze = reanalyze
    }

    /// Items finished and items to do, as of now.
    public var completedAndTotal: (completed: Int, total: Int) { progress.withLockedValue { ($0.completed, $0.total) } }

    /// 0...1; 1 when there was nothing to do.
    public var fractionCompleted: Double {
        let (completed, total) = completedAndTotal
        guard total > 0 else { return completed == 0 ? 0 : 1 }
        return Double(completed) / Double(total)
    }

    /// Asks the run to stop after the current chunk of audio.
    public func cancel() { progress.withLockedValue { $0.cancelled = true } }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { progress.withLockedValue { $0.cancelled } }

    /// Measures every item due, storing each result as it is measured.
    /// Also stops when the current task is cancelled.
    ///
    /// - Parameter onProgress: called after each item with (completed, total).
    /// - Throws: ``BackbeatError/Code/indexFailed`` if results cannot be stored.
    @discardableResult
    public func run(onProgress: (_ completed: Int, _ total: Int) -> Void = { _, _ in }) throws -> Report {
        let due: [(Int64, String)] = try library.index.read("list items to analyse") { db in
            let sql =
                reanalyze
                ? "SELECT id, path FROM items ORDER BY path"
                : "SELECT i.id, i.path FROM items i LEFT JOIN analysis a ON a.id = i.id WHERE a.id IS NULL ORDER BY i.path"
            return try Row.fetchAll(db, sql: sql).map { ($0[0], $0[1]) }
        }
        progress.withLockedValue {
            $0.completed = 0
            $0.total = due.count
        }
        var report = Report()
        let source = library.scanner.source
        for (id, path) in due {
            let stop = { self.isCancelled || Task.isCancelled }
            if stop() {
                report.wasCancelled = true
                break
            }
            let url = URL(fileURLWithPath: path)
            do {
                var meter: LoudnessMeter?
                var interrupted = false
                try source.decode(url) { format, chunk in
                    if meter == nil { meter = try LoudnessMeter(format: format, url: url) }
                    meter?.add(chunk)
                    if stop() {
                        interrupted = true
                        return false
                    }
                    return true
                }
                if interrupted {
                    report.wasCancelled = true
                    break
                }
                guard let loudness = meter?.result() else {
                    throw BackbeatError(.unreadableFile, operation: "analyse", url: url, reason: "no audio")
                }
                try library.index.write("store loudness") { db in
                    guard try Bool.fetchOne(db, sql: "SELECT 1 FROM items WHERE id = ?", arguments: [id]) != nil else {
                        return
                    }
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO analysis (id, integrated_lufs, true_peak_dbtp) VALUES (?, ?, ?)",
                        arguments: [
                            id, loudness.integratedLUFS.isFinite ? loudness.integratedLUFS : -200,
                            loudness.truePeakDBTP.isFinite ? loudness.truePeakDBTP : -200,
                        ])
                }
                report.analyzed += 1
            } catch let error as BackbeatError where error.code == .indexFailed {
                throw error
            } catch {
                let reason = (error as? BackbeatError).map { $0.description.dropPrefix(path + ": ") } ?? "\(error)"
                report.failed.append(.init(url: url, reason: reason))
            }
            let (completed, total) = progress.withLockedValue { state -> (Int, Int) in
                state.completed += 1
                return (state.completed, state.total)
            }
            onProgress(completed, total)
        }
        return report
    }
}
