import BackbeatSupport

/// A music player's queue as a state machine: the items, their play order
/// (repeat and shuffle, through ``QueueOrder``), the item now playing and the
/// plays planned after it. Every change is a mutating function that returns
/// the ``Action`` the owner performs on its stream; the machine does no I/O and
/// knows no player, stream or engine, so it is tested on its own.
///
/// Both engine players hold one:
/// - ``MusicPlayer`` keeps its queue as set and moves a position along the
///   order (`consumesPlayed` false): items stay where they are, failed ones
///   are skipped, and the position goes back to the start when the queue ends.
/// - ``QueuePlayer`` plays its first item (`consumesPlayed` true): an item
///   that is done leaves the queue, or goes to its back with
///   ``MusicPlayer/RepeatMode/all`` (a looping queue), and a failed one leaves.
///
/// `Key` names an item (the application player's queue index, the queue
/// player's `PlayerItem`); the machine only compares keys.
struct QueueStateMachine<Key: Hashable & Sendable>: Sendable {
    /// One play of one item, as the stream knows it. An item played twice is two entries.
    struct Entry: Sendable, Equatable {
        let id: UInt64
        let key: Key
        /// The frame decoding starts at (a seek, or 0).
        var startFrame: Int64 = 0

        init(key: Key, startFrame: Int64 = 0) {
            id = UniqueID.next()
            self.key = key
            self.startFrame = startFrame
        }
    }

    /// What the owner does to its stream after a transition.
    enum Action: Sendable, Equatable {
        /// Nothing.
        case none
        /// Starts the stream over with `current` and then `upcoming`; with
        /// `rampIn`, the sound rises (a start mid-item).
        case restart(current: Entry, upcoming: [Entry], rampIn: Bool)
        /// Keeps what plays and replaces what follows `current` with `upcoming`.
        case setUpcoming([Entry], after: Entry)
        /// Empties the stream and stops it.
        case stop
    }

    /// The items, in queue order (as set and inserted; not the shuffled order).
    private(set) var keys: [Key] = []
    /// The play order, repeat, shuffle and failed items.
    private(set) var order = QueueOrder()
    /// Where in the current cycle's order the current item is; nil when the queue is empty.
    private(set) var position: Int?
    /// The play the stream holds for the current item; nil when nothing is loaded.
    private(set) var current: Entry?
    /// The plays after `current`, in order; always a prefix of what the order says comes next.
    private(set) var planned: [Entry] = []
    /// Whether an item that is done leaves the queue (see the type's description).
    let consumesPlayed: Bool
    /// How many plays are planned when the stream starts or the plan changes.
    private(set) var planDepth: Int
    /// How far ``extendPlan()`` goes when the stream runs out of plan.
    private(set) var planLimit: Int

    init(consumesPlayed: Bool, planDepth: Int, planLimit: Int) {
        self.consumesPlayed = consumesPlayed
        self.planDepth = max(0, planDepth)
        self.planLimit = max(self.planDepth, planLimit)
    }

    // MARK: Reading

    /// The queue index of the current item.
    var currentIndex: Int? { position.map { order.order[$0] } }

    /// The current item; nil when the queue is empty.
    var currentKey: Key? { currentIndex.map { keys[$0] } }

    /// The items from the current one, in play order, as far as this cycle goes
    /// (for a consuming queue: the whole queue, the current item first).
    var upcomingInCycle: [Key] {
        guard let position else { return [] }
        return order.order[position...].map { keys[$0] }
    }

    /// The item that entry `id` (current or planned) plays.
    func key(forEntry id: UInt64) -> Key? {
        if let current, current.id == id { return current.key }
        return planned.first { $0.id == id }?.key
    }

    /// Whether `id` is the current play.
    func isCurrent(_ id: UInt64) -> Bool { current?.id == id }

    var repeatMode: MusicPlayer.RepeatMode { order.repeatMode }
    var shuffleMode: MusicPlayer.ShuffleMode { order.shuffleMode }

    // MARK: The queue

    /// Replaces the queue (with each item's album title, for album shuffle);
    /// the first item in order becomes current, unloaded.
    mutating func setQueue(_ keys: [Key], albums: [String?]? = nil) -> Action {
        self.keys = keys
        order.reset(albums: albums ?? Array(repeating: nil, count: keys.count))
        position = keys.isEmpty ? nil : 0
        return stop()
    }

    /// Inserts `key` after `afterKey` in the queue and in the play order (at
    /// the end of both when `afterKey` is nil or not there). Into an empty
    /// queue, it becomes current and loads.
    mutating func insert(_ key: Key, after afterKey: Key?, album: String? = nil) -> Action {
        let afterIndex = afterKey.flatMap { keys.firstIndex(of: $0) }
        let index = afterIndex.map { $0 + 1 } ?? keys.count
        let slot = afterIndex.flatMap { order.order.firstIndex(of: $0) }.map { $0 + 1 } ?? order.order.count
        keys.insert(key, at: index)
        order.insert(index: index, album: album, atSlot: slot)
        guard let position else {
            position = order.order.firstIndex(of: index)
            return start(at: 0)
        }
        if slot <= position { self.position = position + 1 }
        return replan()
    }

    /// Removes `key`. When it was current, the item after it in order (the
    /// first, when it was the last) becomes current and loads, if `load`;
    /// an empty queue stops.
    mutating func remove(_ key: Key, load: Bool = true) -> Action {
        guard let index = keys.firstIndex(of: key) else { return .none }
        keys.remove(at: index)
        let slot = order.remove(index: index)
        guard let position, let slot else { return .none }
        if keys.isEmpty {
            self.position = nil
            return stop()
        }
        if slot < position {
            self.position = position - 1
            return replan()
        }
        if slot > position { return replan() }
        if position >= order.order.count { self.position = 0 }
        return load ? start(at: 0) : unload()
    }

    /// Changes the repeat mode and plans again.
    mutating func setRepeatMode(_ mode: MusicPlayer.RepeatMode) -> Action {
        order.repeatMode = mode
        return replan()
    }

    /// Changes the shuffle (the current item stays current, first in the new order) and plans again.
    mutating func setShuffleMode(_ mode: MusicPlayer.ShuffleMode) -> Action {
        guard mode != order.shuffleMode else { return .none }
        position = order.setShuffle(mode, keeping: currentIndex)
        return replan()
    }

    /// Seeds the shuffle (an order can be reproduced) and plans again.
    mutating func seedShuffle(_ seed: UInt64) -> Action {
        position = order.seed(seed, keeping: currentIndex)
        return replan()
    }

    /// Sets how many plays are planned ahead (0: none, the stream ends with the current item) and plans again.
    mutating func setPlanDepth(_ depth: Int, limit: Int) -> Action {
        planDepth = max(0, depth)
        planLimit = max(planDepth, limit)
        return replan()
    }

    // MARK: Transport

    /// Loads the current item from `frame`, with the plan after it.
    mutating func start(at frame: Int64) -> Action {
        guard let key = currentKey else { return stop() }
        let entry = Entry(key: key, startFrame: max(0, frame))
        current = entry
        planned = []
        planned = upcomingKeys(planDepth).map { Entry(key: $0) }
        return .restart(current: entry, upcoming: planned, rampIn: entry.startFrame > 0)
    }

    /// Unloads; the stream empties. The current item stays current.
    mutating func stop() -> Action {
        _ = unload()
        return .stop
    }

    /// The current item is done (played to its end, or skipped with
    /// `skipping`, which ignores repeat-one): the next in order becomes
    /// current. With `reusePlan`, a planned play of it carries on gaplessly;
    /// otherwise it loads (if `load`). At the end of the queue, it stops.
    mutating func advance(skipping: Bool = false, reusePlan: Bool = true, load: Bool = true) -> Action {
        guard let position else { return stop() }
        guard let next = order.successor(of: position, wraps: false, ignoreRepeatOne: skipping) else {
            return endOfQueue()
        }
        move(to: next.position, wraps: next.wraps)
        return becameCurrent(reusePlan: reusePlan, load: load)
    }

    /// Moves to the previous item in order (the last, with repeat all), or
    /// restarts the current item at the start of the order. A consuming queue
    /// keeps no history: it restarts the current item.
    mutating func previous(load: Bool = true) -> Action {
        guard let position else { return .none }
        if position > 0, !consumesPlayed {
            move(to: position - 1, wraps: false)
        } else if order.repeatMode == .all, !consumesPlayed, !order.order.isEmpty {
            move(to: order.order.count - 1, wraps: false)
        } else {
            return start(at: 0)
        }
        return load ? start(at: 0) : unload()
    }

    /// The stream ran out of plan: plan one more play (or, below the plan
    /// depth, up to it), as far as ``planLimit``.
    mutating func extendPlan() -> Action {
        guard let current, planned.count < planLimit else { return .none }
        let wanted = upcomingKeys(min(planLimit, max(planned.count + 1, planDepth)))
        guard wanted.count > planned.count else { return .none }
        planned += wanted[planned.count...].map { Entry(key: $0) }
        return .setUpcoming(planned, after: current)
    }

    /// Play `id` failed (it cannot be opened or decoded). A consuming queue
    /// removes its item; otherwise the item is skipped from now on. A failed
    /// current play moves on as ``advance(skipping:reusePlan:load:)`` does.
    mutating func entryFailed(_ id: UInt64, load: Bool = true) -> Action {
        if let current, current.id == id, let position {
            guard consumesPlayed else {
                order.failedItems.insert(order.order[position])
                return advance(load: load)
            }
            keys.remove(at: order.order[position])
            order.remove(index: order.order[position])
            if keys.isEmpty {
                self.position = nil
                return load ? stop() : unload()
            }
            if position >= order.order.count { self.position = 0 }
            return becameCurrent(reusePlan: true, load: load)
        }
        guard let i = planned.firstIndex(where: { $0.id == id }) else { return .none }
        let key = planned[i].key
        planned.remove(at: i)
        if consumesPlayed {
            if key == currentKey { return remove(key, load: load) }
            while let index = keys.firstIndex(of: key) {
                keys.remove(at: index)
                order.remove(index: index)
            }
        } else if let index = keys.firstIndex(of: key) {
            order.failedItems.insert(index)
        }
        return replan()
    }

    /// Plans again after a change, keeping the plays already planned that still come next.
    mutating func replan() -> Action {
        guard let current else { return .none }
        let wanted = upcomingKeys(max(planDepth, min(planned.count, planLimit)))
        var kept = 0
        while kept < min(wanted.count, planned.count), planned[kept].key == wanted[kept] { kept += 1 }
        planned = Array(planned[..<kept]) + wanted[kept...].map { Entry(key: $0) }
        return .setUpcoming(planned, after: current)
    }

    // MARK: Internals

    private mutating func unload() -> Action {
        current = nil
        planned = []
        return .none
    }

    /// The item at `position` just became current.
    private mutating func becameCurrent(reusePlan: Bool, load: Bool) -> Action {
        if reusePlan, let first = planned.first, first.key == currentKey {
            current = first
            planned.removeFirst()
            return replan()
        }
        return load ? start(at: 0) : unload()
    }

    /// The end of the queue (the stream has nothing left): a consuming queue is empty now; otherwise the
    /// first item in order is current again. Either way the stream stops.
    mutating func endOfQueue() -> Action {
        if consumesPlayed {
            keys.removeAll()
            order.reset(albums: [])
            position = nil
        } else {
            position = order.order.isEmpty ? nil : 0
        }
        return stop()
    }

    /// Makes `slot` (of the next cycle when `wraps`) current. A consuming
    /// queue drops the items before it, or sends them to its back with repeat all.
    private mutating func move(to slot: Int, wraps: Bool) {
        if wraps { order.beginNextCycle() }
        guard consumesPlayed, slot > 0 else {
            position = slot
            return
        }
        let loops = order.repeatMode == .all
        let gone = order.order[..<slot].sorted()
        if loops {
            keys = Array(keys[slot...] + keys[..<slot])
        } else {
            for index in gone.reversed() { keys.remove(at: index) }
        }
        order.rotate(bySlots: slot, keep: loops)
        position = 0
    }

    /// The next `count` items after the current one, in play order (fewer at the end of the queue).
    private mutating func upcomingKeys(_ count: Int) -> [Key] {
        guard let position, count > 0 else { return [] }
        var result: [Key] = []
        var at = (position: position, wraps: false)
        while result.count < count, let next = order.successor(of: at.position, wraps: at.wraps) {
            result.append(keys[order.item(at: next.position, wraps: next.wraps)])
            at = next
        }
        return result
    }
}
