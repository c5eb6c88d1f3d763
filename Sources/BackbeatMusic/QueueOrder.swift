import BackbeatSupport

/// The play order as a value (``QueueStateMachine`` holds it): the current cycle's order
/// over the queue, the next cycle's (made on demand), repeat and shuffle, and
/// the items that failed. It knows positions and queue indices, never streams
/// or the engine, so it is tested on its own.
struct QueueOrder: Sendable {
    /// The play order of the current cycle (indices into the queue).
    private(set) var order: [Int] = []
    /// The next cycle's order, once asked for.
    private var nextOrder: [Int]?
    /// Each queue item's album title (albums shuffle as units).
    private var albums: [String?] = []
    /// How the queue repeats.
    var repeatMode: MusicPlayer.RepeatMode = .none
    /// How the queue is shuffled (change it with ``setShuffle(_:keeping:)``).
    private(set) var shuffleMode: MusicPlayer.ShuffleMode = .off
    private var random = SplitMix64(seed: 0x5EED)
    /// Queue indices that failed to play; skipped from now on.
    var failedItems = Set<Int>()

    /// A new queue of items with these album titles, in a new order.
    mutating func reset(albums: [String?]) {
        self.albums = albums
        failedItems.removeAll()
        nextOrder = nil
        order = makeOrder(startingWith: nil)
    }

    /// Changes the shuffle and reorders, keeping queue index `current` first;
    /// returns its position in the new order.
    mutating func setShuffle(_ mode: MusicPlayer.ShuffleMode, keeping current: Int?) -> Int? {
        shuffleMode = mode
        return reorder(keeping: current)
    }

    /// Seeds the shuffle and reorders, keeping queue index `current`; returns its position.
    mutating func seed(_ seed: UInt64, keeping current: Int?) -> Int? {
        random = SplitMix64(seed: seed)
        return reorder(keeping: current)
    }

    private mutating func reorder(keeping current: Int?) -> Int? {
        order = makeOrder(startingWith: current)
        nextOrder = nil
        return current.flatMap { order.firstIndex(of: $0) }
    }

    /// Inserts a new queue index `index` (later indices move up by one) with
    /// `album`, at `slot` of the current cycle's order; the next cycle is
    /// made again when asked for.
    mutating func insert(index: Int, album: String?, atSlot slot: Int) {
        albums.insert(album, at: index)
        order = order.map { $0 >= index ? $0 + 1 : $0 }
        order.insert(index, at: min(max(0, slot), order.count))
        failedItems = Set(failedItems.map { $0 >= index ? $0 + 1 : $0 })
        nextOrder = nil
    }

    /// Removes queue index `index` (later indices move down by one); returns
    /// the slot it held in the current cycle's order.
    @discardableResult
    mutating func remove(index: Int) -> Int? {
        albums.remove(at: index)
        let slot = order.firstIndex(of: index)
        if let slot { order.remove(at: slot) }
        order = order.map { $0 > index ? $0 - 1 : $0 }
        failedItems = Set(failedItems.compactMap { $0 == index ? nil : $0 > index ? $0 - 1 : $0 })
        nextOrder = nil
        return slot
    }

    /// Makes the cycle start at `slot`: the slots before it move to the end
    /// (`keep`) or leave (their items are gone from the queue, and the caller
    /// removes them). Only for an unshuffled order, where cycles are the queue
    /// order itself.
    mutating func rotate(bySlots slot: Int, keep: Bool) {
        guard slot > 0 else { return }
        if keep {
            albums = Array(albums[slot...] + albums[..<slot])
        } else {
            albums.removeFirst(slot)
        }
        failedItems.removeAll()
        order = Array(albums.indices)
        nextOrder = nil
    }

    /// The next cycle becomes the current one.
    mutating func beginNextCycle() {
        order = nextCycle()
        nextOrder = nil
    }

    /// The position after `position` (in the next cycle when `wraps`), skipping failed items.
    mutating func successor(of position: Int, wraps: Bool, ignoreRepeatOne: Bool = false) -> (
        position: Int, wraps: Bool
    )? {
        if repeatMode == .one && !ignoreRepeatOne { return (position, wraps) }
        guard !wraps else {
            // Planning past the start of the next cycle: only within it.
            let cycle = nextCycle()
            var p = position + 1
            while p < cycle.count {
                if !failedItems.contains(cycle[p]) { return (p, true) }
                p += 1
            }
            return nil
        }
        var p = position + 1
        while p < order.count {
            if !failedItems.contains(order[p]) { return (p, false) }
            p += 1
        }
        guard repeatMode == .all else { return nil }
        let cycle = nextCycle()
        p = 0
        while p < cycle.count {
            if !failedItems.contains(cycle[p]) { return (p, true) }
            p += 1
        }
        return nil
    }

    /// The queue index at `position` of the current cycle, or of the next when `wraps`.
    mutating func item(at position: Int, wraps: Bool) -> Int { (wraps ? nextCycle() : order)[position] }

    private mutating func nextCycle() -> [Int] {
        if let nextOrder { return nextOrder }
        var made = makeOrder(startingWith: nil)
        // A shuffled cycle does not begin with the song the last one ended on.
        if shuffleMode == .songs, made.count > 1, made.first == order.last { made.swapAt(0, made.count - 1) }
        nextOrder = made
        return made
    }

    private mutating func makeOrder(startingWith first: Int?) -> [Int] {
        var indices = Array(albums.indices)
        switch shuffleMode {
        case .off:
            return indices
        case .songs:
            random.shuffle(&indices)
        case .albums:
            var byAlbum: [String: [Int]] = [:]
            var keys: [String] = []
            for i in albums.indices {
                let key = albums[i] ?? "\u{0}\(i)"
                if byAlbum[key] == nil { keys.append(key) }
                byAlbum[key, default: []].append(i)
            }
            random.shuffle(&keys)
            indices = keys.flatMap { byAlbum[$0]! }
        }
        if let first, let i = indices.firstIndex(of: first) {
            if shuffleMode == .songs {
                indices.swapAt(0, i)
            } else if shuffleMode == .albums {
                // Start the cycle at the current song's album, keeping album order.
                let album = albums[first]
                let rotation = indices.firstIndex { albums[$0] == album && album != nil } ?? i
                indices = Array(indices[rotation...] + indices[..<rotation])
            }
        }
        return indices
    }
}
