import BackbeatSupport
import GRDB

/// Grouping in SQLite: for every grouping but ``MediaGrouping/title``, the
/// index returns one row per collection (its sort name, key, size and first
/// item), and only those first items are decoded. A collection reads the
/// rest of its items from the index when first asked.
extension MediaQuery {
    /// One block of items with equal sort name and key.
    struct Block: Sendable {
        let sortName: String
        let key: DatabaseValue
    }

    /// One collection as SQLite grouped it: a run of adjacent blocks with the same key.
    struct GroupSummary {
        var blocks: [Block]
        var count: Int
        var representativeID: Int64
        var sortKey: String { blocks[0].sortName }
    }

    /// Reads a collection's items: the items of its blocks that match the query, in order.
    struct CollectionMembers: Sendable {
        let index: LibraryIndex
        let plan: MediaGrouping.Plan
        let clause: String
        let arguments: StatementArguments

        func items(_ blocks: [Block]) throws -> [MediaItem] {
            let match = blocks.map { _ in "(i.\(plan.sortKey) = ? AND i.\(plan.key) = ?)" }.joined(separator: " OR ")
            var arguments = StatementArguments(blocks.flatMap { [$0.sortName.databaseValue, $0.key] })
            arguments += self.arguments
            let sql =
                "SELECT i.id FROM items i WHERE (\(match))\(clause.isEmpty ? "" : " AND \(clause)") ORDER BY \(plan.orderBy())"
            return try index.read("read collection") { db in
                let generation = try LibraryIndex.generation(db)
                let ids = try Int64.fetchAll(db, sql: sql, arguments: arguments)
                return try index.cache.items(ids, generation: generation, db: db)
            }
        }
    }

    /// The collections, grouped by SQLite, each with its first item decoded.
    func groupedInSQL() throws -> [MediaItemCollection] {
        let (clause, arguments) = try whereClause()
        let members = CollectionMembers(
            index: library.index, plan: groupingType.plan, clause: clause, arguments: arguments)
        let index = library.index
        return try index.read("query") { db in
            let generation = try LibraryIndex.generation(db)
            let groups = try groupSummaries(db, representatives: true)
            let firsts = try index.cache.items(
                groups.map(\.representativeID), generation: generation, db: db, decodingAll: false)
            guard firsts.count == groups.count else {
                throw BackbeatError(.indexFailed, operation: "query", reason: "items vanished during the query")
            }
            return zip(groups, firsts).map { group, first in
                let blocks = group.blocks
                return MediaItemCollection(
                    count: group.count, representativeItem: first,
                    deferred: DeferredItems(fallback: [first]) { try members.items(blocks) })
            }
        }
    }

    /// The collections' sort names, for sections, read in one transaction.
    func groupSummaries(representatives: Bool) throws -> [GroupSummary] {
        try library.index.read("query") { db in try groupSummaries(db, representatives: representatives) }
    }

    /// One `GROUP BY` over the (sort name, key) blocks, in order, with each
    /// block's size and (when `representatives`) its first item's ID; adjacent
    /// blocks with the same key merge into one collection, exactly as a run
    /// over the ordered items would.
    func groupSummaries(_ db: Database, representatives: Bool) throws -> [GroupSummary] {
        let plan = groupingType.plan
        let (outer, outerArguments) = try whereClause(table: "g")
        let (inner, innerArguments) = try whereClause()
        let sortName = "g.\(plan.sortKey)"
        let key = "g.\(plan.key)"
        let first = """
            , (SELECT i.id FROM items i WHERE i.\(plan.sortKey) = \(sortName) AND i.\(plan.key) = \(key)\
            \(inner.isEmpty ? "" : " AND \(inner)") ORDER BY \(MediaGrouping.Plan.qualified(plan.withinBlock, "i")) LIMIT 1)
            """
        let sql = """
            SELECT \(sortName), \(key), COUNT(*)\(representatives ? first : "") FROM items g\
            \(outer.isEmpty ? "" : " WHERE \(outer)") GROUP BY \(sortName), \(key) ORDER BY \(sortName), \(key)
            """
        // The subquery's placeholders come first in the text.
        var arguments = representatives ? innerArguments : StatementArguments()
        arguments += outerArguments
        var groups: [GroupSummary] = []
        let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try cursor.next() {
            let block = Block(sortName: try row.value(at: 0), key: try row.value(at: 1))
            let count = try row.value(at: 2, as: Int.self)
            if let last = groups.last, last.blocks[last.blocks.count - 1].key == block.key {
                groups[groups.count - 1].blocks.append(block)
                groups[groups.count - 1].count += count
            } else {
                groups.append(
                    GroupSummary(
                        blocks: [block], count: count,
                        representativeID: representatives ? try row.value(at: 3, as: Int64.self) : 0))
            }
        }
        return groups
    }
}
