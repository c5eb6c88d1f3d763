import BackbeatSupport
import GRDB

/// Decoded items, keyed by ID, valid for one generation of the index.
///
/// Decoding an item reads two dozen columns; a query that groups a whole
/// library would spend most of its time there. Queries therefore read only
/// IDs and group keys from SQLite and take the items from this cache. Every
/// write that changes items bumps the index's generation in the same
/// transaction; a reader compares the generation it sees in its own read
/// transaction with the cache's, so it never mixes items from two versions of
/// the library: an older cache is dropped, and a reader older than the cache
/// decodes from its own snapshot without touching the cache.
final class ItemCache: Sendable {
    private let state = LockedValueBox<(generation: Int64, items: [Int64: MediaItem])>((-1, [:]))

    /// The items with `ids`, in order, as of `generation` (read from `db`'s current transaction).
    /// With `decodingAll`, many misses decode the whole table at once (right when
    /// `ids` are most of it); without, only the missing items are decoded (right
    /// for a few items spread over the table, such as one per album).
    func items(_ ids: [Int64], generation: Int64, db: Database, decodingAll: Bool = true) throws -> [MediaItem] {
        enum Plan {
            case cached([MediaItem])
            case fill([Int64])
            case bypass
        }
        let plan: Plan = state.withLockedValue { state in
            if state.generation < generation { state = (generation, [:]) }
            guard state.generation == generation else { return .bypass }
            var found: [MediaItem] = []
            found.reserveCapacity(ids.count)
            var missing: [Int64] = []
            for id in ids {
                if let item = state.items[id] { found.append(item) } else { missing.append(id) }
            }
            return missing.isEmpty ? .cached(found) : .fill(missing)
        }
        switch plan {
        case .cached(let items):
            return items
        case .bypass:
            return try Self.decode(ids, db: db)
        case .fill(let missing):
            // Many misses: decoding the whole table in one pass is cheaper than thousands of lookups.
            let decoded =
                decodingAll && missing.count > 2_000
                ? try LibraryIndex.fetchItems(db, orderBy: "i.id")
                : try Self.decode(missing, db: db)
            return state.withLockedValue { state in
                if state.generation == generation {
                    for item in decoded { state.items[Int64(bitPattern: item.persistentID)] = item }
                    return ids.compactMap { state.items[$0] }
                }
                let byID = Dictionary(
                    decoded.map { (Int64(bitPattern: $0.persistentID), $0) }, uniquingKeysWith: { a, _ in a })
                return ids.compactMap { byID[$0] }
            }
        }
    }

    /// How many items the cache holds (for tests: what a query decoded).
    var count: Int { state.withLockedValue { $0.items.count } }

    private static func decode(_ ids: [Int64], db: Database) throws -> [MediaItem] {
        var byID: [Int64: MediaItem] = [:]
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = Array(ids[start..<min(ids.count, start + 500)])
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            for item in try LibraryIndex.fetchItems(
                db, where: "i.id IN (\(marks))", arguments: StatementArguments(chunk), orderBy: "i.id")
            {
                byID[Int64(bitPattern: item.persistentID)] = item
            }
        }
        return ids.compactMap { byID[$0] }
    }
}
