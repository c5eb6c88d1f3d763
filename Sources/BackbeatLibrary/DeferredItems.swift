import BackbeatSupport

/// A collection's items, read on first use and kept.
///
/// If reading fails (the index became unreadable since the query), `items`
/// returns `fallback` (the items known at query time) and the next use tries again.
final class DeferredItems: Sendable {
    private let load: @Sendable () throws -> [MediaItem]
    private let fallback: [MediaItem]
    private let loaded = LockedValueBox<[MediaItem]?>(nil)

    init(fallback: [MediaItem], load: @escaping @Sendable () throws -> [MediaItem]) {
        self.fallback = fallback
        self.load = load
    }

    var items: [MediaItem] {
        if let items = loaded.withLockedValue({ $0 }) { return items }
        guard let items = try? load() else { return fallback }
        return loaded.withLockedValue { stored in
            if stored == nil { stored = items }
            return stored!
        }
    }
}
