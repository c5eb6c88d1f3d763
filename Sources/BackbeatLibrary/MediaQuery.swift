import BackbeatSupport
import GRDB

/// A question for a ``MediaLibrary``: which items match a set of predicates
/// (combined with AND), and how to group them into collections.
///
/// A bare query matches everything. The factory queries (``songs(in:)``,
/// ``albums(in:)``...) come with the media-type predicate and grouping the iPod
/// used. Ordering is the iPod's: names sort ignoring a leading "The", "A" or
/// "An", and an album's items sort by disc, then track number.
public struct MediaQuery: Sendable {
    /// The library asked.
    public let library: MediaLibrary
    /// The predicates, combined with AND.
    public private(set) var filterPredicates: Set<MediaPropertyPredicate> = []
    /// How ``collections`` groups the items.
    public var groupingType: MediaGrouping

    /// A query for everything in `library`, grouped by title.
    ///
    /// - Parameter library: The library to query.
    public init(library: MediaLibrary) {
        self.library = library
        self.groupingType = .title
    }

    /// A query with `filterPredicates`.
    ///
    /// - Parameters:
    ///   - library: The library to query.
    ///   - filterPredicates: Conditions every item must meet, at most one per property.
    /// - Throws: ``BackbeatError/Code/duplicatePredicate`` when two predicates
    ///   share a property, ``BackbeatError/Code/nonFilterableProperty`` or
    ///   ``BackbeatError/Code/predicateTypeMismatch`` for one that cannot apply.
    public init(library: MediaLibrary, filterPredicates: Set<MediaPropertyPredicate>) throws {
        self.init(library: library)
        for predicate in filterPredicates.sorted(by: { $0.description < $1.description }) {
            try addFilterPredicate(predicate)
        }
    }

    /// Adds a predicate (AND).
    ///
    /// - Parameter predicate: A condition every item must meet too.
    /// - Throws: ``BackbeatError/Code/duplicatePredicate`` when the query already
    ///   has a predicate on that property, ``BackbeatError/Code/nonFilterableProperty``
    ///   or ``BackbeatError/Code/predicateTypeMismatch`` when it cannot apply.
    public mutating func addFilterPredicate(_ predicate: MediaPropertyPredicate) throws {
        _ = try predicate.sqlCondition()
        if let other = filterPredicates.first(where: { $0.property == predicate.property }) {
            throw BackbeatError(
                .duplicatePredicate, operation: "add predicate",
                reason: "\(predicate) conflicts with \(other)")
        }
        filterPredicates.insert(predicate)
    }

    /// Removes a predicate, if present.
    ///
    /// - Parameter predicate: The condition to drop; one the query does not have is ignored.
    public mutating func removeFilterPredicate(_ predicate: MediaPropertyPredicate) {
        filterPredicates.remove(predicate)
    }

    // MARK: Factory queries

    private static func factory(
        _ library: MediaLibrary, _ type: MediaType, _ grouping: MediaGrouping,
        compilations: Bool = false
    ) -> MediaQuery {
        var query = MediaQuery(library: library)
        query.groupingType = grouping
        query.filterPredicates.insert(MediaPropertyPredicate(value: type))
        if compilations { query.filterPredicates.insert(MediaPropertyPredicate(value: true, property: .isCompilation)) }
        return query
    }

    /// Music, grouped by title.
    ///
    /// - Parameter library: The library to query.
    /// - Returns: A query for every song.
    public static func songs(in library: MediaLibrary) -> MediaQuery { factory(library, .music, .title) }
    /// Music, grouped by album.
    ///
    /// - Parameter library: The library to query.
    /// - Returns: A query for every album.
    public static func albums(in library: MediaLibrary) -> MediaQuery { factory(library, .music, .album) }
    /// Music, grouped by artist.
    ///
    /// - Parameter library: The library to query.
    /// - Returns: A query for every artist.
    public static func artists(in library: MediaLibrary) -> MediaQuery { factory(library, .music, .artist) }
    /// Music, grouped by album artist.
    ///
    /// - Parameter library: The library to query.
    /// - Returns: A query for every album artist.
    public static func albumArtists(in library: MediaLibrary) -> MediaQuery { factory(library, .music, .albumArtist) }
    /// Music, grouped by genre.
    ///
    /// - Parameter library: The library to query.
    /// - Returns: A query for every genre.
    public static func genres(in library: MediaLibrary) -> MediaQuery { factory(library, .music, .genre) }
    /// Music, grouped by composer.
    ///
    /// - Parameter library: The library to query.
    /// - Returns: A query for every composer.
    public static func composers(in library: MediaLibrary) -> MediaQuery { factory(library, .music, .composer) }
    /// Music marked as compilations, grouped by album.
    ///
    /// - Parameter library: The library to query.
    /// - Returns: A query for every compilation.
    public static func compilations(in library: MediaLibrary) -> MediaQuery {
        factory(library, .music, .album, compilations: true)
    }
    /// Any audio, grouped by playlist.
    ///
    /// - Parameter library: The library to query.
    /// - Returns: A query for every playlist.
    public static func playlists(in library: MediaLibrary) -> MediaQuery { factory(library, .anyAudio, .playlist) }
    /// Podcast episodes, grouped by podcast.
    ///
    /// - Parameter library: The library to query.
    /// - Returns: A query for every podcast.
    public static func podcasts(in library: MediaLibrary) -> MediaQuery { factory(library, .podcast, .podcastTitle) }
    /// Audiobooks, grouped by title.
    ///
    /// - Parameter library: The library to query.
    /// - Returns: A query for every audiobook.
    public static func audiobooks(in library: MediaLibrary) -> MediaQuery { factory(library, .audiobook, .title) }

    // MARK: Results

    /// The matching items, in the grouping's order (for ``MediaGrouping/playlist``,
    /// every item of every playlist, once, in playlist order).
    public var items: [MediaItem] {
        get throws {
            if groupingType == .playlist {
                var seen = Set<UInt64>()
                return try playlists.flatMap(\.items).filter { seen.insert($0.persistentID).inserted }
            }
            return try grouped().map(\.item)
        }
    }

    /// The matching items grouped by ``groupingType``, each group in order.
    public var collections: [MediaItemCollection] {
        get throws {
            if groupingType == .playlist { return try playlists.map(\.collection) }
            if groupingType.plan.groupsInBlocks { return try groupedInSQL() }
            return try groups().map { MediaItemCollection(items: $0.items) }
        }
    }

    /// Alphabetical sections of ``items`` by the grouping's sort name (titles for songs).
    public var itemSections: [MediaQuerySection] {
        get throws {
            if groupingType == .playlist {
                return Self.sections(try items.map { TextFolding.sortKey($0.title) })
            }
            return Self.sections(try grouped(withSortKeys: true).map(\.sortKey))
        }
    }

    /// Alphabetical sections of ``collections``.
    public var collectionSections: [MediaQuerySection] {
        get throws {
            if groupingType == .playlist { return Self.sections(try playlists.map { TextFolding.sortKey($0.name) }) }
            if groupingType.plan.groupsInBlocks {
                return Self.sections(try groupSummaries(representatives: false).map(\.sortKey))
            }
            return Self.sections(try groups(withSortKeys: true).map(\.sortKey))
        }
    }

    /// The playlists holding matching items, by name, each with only its matching items
    /// (playlists left empty by the predicates are dropped unless the query has none).
    public var playlists: [MediaPlaylist] {
        get throws {
            let (clause, arguments) = try whereClause()
            let realPredicates = filterPredicates.contains { $0.property != .mediaType }
            return try library.index.read("query playlists") { db in
                var result: [MediaPlaylist] = []
                let rows = try Row.fetchAll(db, sql: "SELECT id, name FROM playlists ORDER BY name_sort, id")
                for row in rows {
                    let id = try row.value(at: 0, as: Int64.self)
                    var args = arguments
                    args += [id]
                    let condition = (clause.isEmpty ? "" : "\(clause) AND ") + "e.playlist_id = ?"
                    let items = try LibraryIndex.fetchItems(
                        db, joining: "JOIN playlist_entries e ON e.item_id = i.id", where: condition, arguments: args,
                        orderBy: "e.position")
                    if items.isEmpty, realPredicates { continue }
                    result.append(
                        MediaPlaylist(
                            persistentID: UInt64(bitPattern: id), name: try row.value(at: 1), attributes: [],
                            collection: MediaItemCollection(items: items)))
                }
                return result
            }
        }
    }

    // MARK: Evaluation

    /// The predicates as one SQL condition on the items table aliased `table` (empty for none), and its arguments.
    func whereClause(table: String = "i") throws -> (String, StatementArguments) {
        var conditions: [String] = []
        var arguments = StatementArguments()
        for predicate in filterPredicates.sorted(by: { $0.property.name < $1.property.name }) {
            let (sql, value) = try predicate.sqlCondition(table: table)
            conditions.append(sql)
            arguments += [value]
        }
        return (conditions.joined(separator: " AND "), arguments)
    }

    struct GroupedItem {
        let item: MediaItem
        let groupKey: DatabaseValue
        let sortKey: String
    }

    /// The matching items in order, with their group keys (and sort keys when `withSortKeys`).
    /// SQLite filters and orders IDs; the items come from the library's ``ItemCache``.
    func grouped(withSortKeys: Bool = false) throws -> [GroupedItem] {
        let (clause, arguments) = try whereClause()
        let plan = groupingType.plan
        let sql = """
            SELECT i.id, i.\(plan.key)\(withSortKeys ? ", i.\(plan.sortKey)" : "") FROM items i
            \(clause.isEmpty ? "" : "WHERE \(clause)") ORDER BY \(plan.orderBy())
            """
        let index = library.index
        return try index.read("query") { db in
            let generation = try LibraryIndex.generation(db)
            var ids: [Int64] = []
            var keys: [DatabaseValue] = []
            var sortKeys: [String] = []
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            while let row = try cursor.next() {
                ids.append(try row.value(at: 0))
                keys.append(try row.value(at: 1))
                if withSortKeys { sortKeys.append(try row.value(at: 2)) }
            }
            let items = try index.cache.items(ids, generation: generation, db: db)
            guard items.count == ids.count else {
                throw BackbeatError(.indexFailed, operation: "query", reason: "items vanished during the query")
            }
            return items.indices.map {
                GroupedItem(item: items[$0], groupKey: keys[$0], sortKey: withSortKeys ? sortKeys[$0] : "")
            }
        }
    }

    func groups(withSortKeys: Bool = false) throws -> [(items: [MediaItem], sortKey: String)] {
        var groups: [(items: [MediaItem], sortKey: String)] = []
        var currentKey: DatabaseValue?
        for entry in try grouped(withSortKeys: withSortKeys) {
            if let currentKey, currentKey == entry.groupKey {
                groups[groups.count - 1].items.append(entry.item)
            } else {
                groups.append(([entry.item], entry.sortKey))
                currentKey = entry.groupKey
            }
        }
        return groups
    }

    static func sections(_ sortKeys: [String]) -> [MediaQuerySection] {
        var sections: [MediaQuerySection] = []
        var start = 0
        var title: String?
        for (index, key) in sortKeys.enumerated() {
            let t = TextFolding.sectionTitle(forSortKey: key)
            if t != title {
                if let title { sections.append(MediaQuerySection(title: title, range: start..<index)) }
                title = t
                start = index
            }
        }
        if let title { sections.append(MediaQuerySection(title: title, range: start..<sortKeys.count)) }
        return sections
    }
}
