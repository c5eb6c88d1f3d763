/// An ordered group of items, such as an album, an artist's songs or a user's selection.
///
/// A collection from a ``MediaQuery`` knows its ``count`` and
/// ``representativeItem`` at once and reads its ``items`` from the library's
/// index when they are first used (so listing 10,000 albums decodes 10,000
/// items, not every song). If the library changed in between, the items are
/// those the collection holds at that point.
public struct MediaItemCollection: Hashable, Sendable {
    private enum Storage: Sendable {
        case items([MediaItem])
        case deferred(DeferredItems)
    }

    private let storage: Storage

    /// The number of items.
    public let count: Int

    /// An item that stands for the collection (its first): use it for an
    /// album's title and artwork, or an artist's name.
    public let representativeItem: MediaItem?

    /// Creates a collection of `items`.
    ///
    /// - Parameter items: The items, in the order they play; the first is the representative item.
    public init(items: [MediaItem]) {
        storage = .items(items)
        count = items.count
        representativeItem = items.first
    }

    /// A query's collection of `count` items starting with `representativeItem`, the rest read on first use.
    init(count: Int, representativeItem: MediaItem, deferred: DeferredItems) {
        storage = .deferred(deferred)
        self.count = count
        self.representativeItem = representativeItem
    }

    /// The items, in order.
    public var items: [MediaItem] {
        switch storage {
        case .items(let items): items
        case .deferred(let deferred): deferred.items
        }
    }

    /// Every media type among the items.
    public var mediaTypes: MediaType { items.reduce(into: MediaType()) { $0.formUnion($1.mediaType) } }

    /// Whether both hold the same items in the same order.
    ///
    /// - Parameters:
    ///   - lhs: A collection.
    ///   - rhs: Another collection.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.items == rhs.items }

    /// Hashes the items, in order.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) { hasher.combine(items) }
}
