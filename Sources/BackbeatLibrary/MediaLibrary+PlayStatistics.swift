import BackbeatSupport
import Foundation
import GRDB

extension MediaLibrary {
    /// Records that `item` was played to the end at `date`: its play count goes up and its last-played date is set.
    /// The music player calls this; the statistics live in the index and follow the item across rescans and moves.
    ///
    /// - Parameters:
    ///   - item: An item of this library.
    ///   - date: When it finished playing.
    /// - Throws: ``BackbeatError/Code/unknownPersistentID`` for an item not in this library.
    public func recordPlay(of item: MediaItem, at date: Date) throws {
        try updateStatistics(
            item.persistentID, operation: "record play",
            sql: """
                INSERT INTO play_stats (id, play_count, last_played) VALUES (?1, 1, ?2)
                ON CONFLICT(id) DO UPDATE SET play_count = play_count + 1, last_played = ?2
                """, arguments: [Int64(bitPattern: item.persistentID), date.timeIntervalSince1970])
    }

    /// Records that `item` was skipped.
    ///
    /// - Parameter item: An item of this library; its skip count goes up.
    /// - Throws: ``BackbeatError/Code/unknownPersistentID`` for an item not in this library.
    public func recordSkip(of item: MediaItem) throws {
        try updateStatistics(
            item.persistentID, operation: "record skip",
            sql: """
                INSERT INTO play_stats (id, skip_count) VALUES (?1, 1)
                ON CONFLICT(id) DO UPDATE SET skip_count = skip_count + 1
                """, arguments: [Int64(bitPattern: item.persistentID)])
    }

    /// Play and skip counts reported by the music player that could not be
    /// written, even after retrying (a disk that is full, an index that stayed
    /// busy), most recent last; the last 16 are kept.
    public var statisticsWriteFailures: [BackbeatError] { statisticsFailures.withLockedValue { $0 } }

    /// Runs `write` on the statistics queue; a busy index is retried twice
    /// more (each attempt waits the busy timeout), and a failure is kept in
    /// ``statisticsWriteFailures``, never dropped in silence.
    func writeStatisticsLater(_ write: @escaping @Sendable (MediaLibrary) throws -> Void) {
        statisticsQueue.async { [self] in
            var attempt = 1
            while true {
                do {
                    return try write(self)
                } catch let error as BackbeatError where error.code == .indexBusy && attempt < 3 {
                    attempt += 1
                } catch {
                    let failure =
                        error as? BackbeatError
                        ?? BackbeatError(.indexFailed, operation: "record statistics", reason: "\(error)")
                    statisticsFailures.withLockedValue { failures in
                        failures.append(failure)
                        if failures.count > 16 { failures.removeFirst(failures.count - 16) }
                    }
                    return
                }
            }
        }
    }

    /// Waits until the statistics written so far are in the index (or failed).
    package func waitForStatistics() {
        statisticsQueue.sync {}
    }

    private func updateStatistics(_ id: UInt64, operation: String, sql: String, arguments: StatementArguments) throws {
        let found = try index.write(operation) { db -> Bool in
            guard
                try Bool.fetchOne(db, sql: "SELECT 1 FROM items WHERE id = ?", arguments: [Int64(bitPattern: id)])
                    != nil
            else { return false }
            try db.execute(sql: sql, arguments: arguments)
            return true
        }
        guard found else {
            throw BackbeatError(.unknownPersistentID, operation: operation, reason: String(format: "item %016llx", id))
        }
    }
}
