/// An ordered group of items, such as an album, an artist's songs or a user's selection.
public struct MediaItemCollection: Hashable, Sendable {
    /// The items, in order.
    public let items: [MediaItem]

    /// Creates a collection of `items`.
    public init(items: [MediaItem]) {
        self.items = items
    }

    /// The number of items.
    public var count: Int { items.count }

    /// Every media type among the items.
    public var mediaTypes: MediaType { items.reduce(into: MediaType()) { $0.formUnion($1.mediaType) } }

    /// An item that stands for the collection (its first): use it for an
    /// album's title and artwork, or an artist's name.
    public var representativeItem: MediaItem? { items.first }
}
