/// The loudest rows offered to it, at most ``capacity``: what a monitor's
/// snapshot lists out of every live voice.
///
/// A bounded selection that turns most rows away with one integer compare.
/// Each row is a 64-bit key that sorts loudest first (the gain's bits,
/// ordered, then the row, which breaks ties as ``VoicePool/louder(_:_:)``
/// does). Rows below a floor are kept in a buffer of twice the capacity;
/// when it fills, a selection keeps the loudest half, and the quietest of
/// those is the new floor, which only rises. A snapshot of 10,000 voices
/// so compares 10,000 keys against the floor, selects among 512 a few
/// times, and sorts 256: no array of every row, no partition of one, and no
/// heap of 256 (whose sifts, a mispredicted branch at every level, cost more
/// than the whole selection here). The storage is kept between snapshots.
struct TelemetrySelection {
    /// The rows' keys: fewer than twice ``capacity`` while offering; the
    /// loudest ``capacity`` at most, loudest first, once sorted.
    private(set) var keys: [UInt64] = []
    /// The most rows kept.
    private(set) var capacity = 0
    /// A key must be below it to be kept (every key when nothing was dropped yet).
    private var floor = UInt64.max

    /// How many rows are kept.
    var count: Int { keys.count }

    /// The `index`th row kept (loudest first, once sorted).
    subscript(index: Int) -> VoicePool.TelemetryRow { Self.row(of: keys[index]) }

    /// Forgets the rows kept, keeping the storage, and sets the capacity.
    ///
    /// - Parameter capacity: the most rows to keep from now on.
    mutating func reset(capacity: Int) {
        keys.removeAll(keepingCapacity: true)
        self.capacity = max(0, capacity)
        floor = self.capacity > 0 ? .max : 0
        keys.reserveCapacity(2 * self.capacity)
    }

    /// Keeps `row` while it may be among the loudest ``capacity`` offered.
    ///
    /// - Parameter row: a live voice's row and gain.
    @inline(__always)
    mutating func offer(_ row: VoicePool.TelemetryRow) {
        let key = Self.key(row)
        guard key < floor else { return }
        keys.append(key)
        if keys.count >= 2 * capacity { keepLoudest() }
    }

    /// Keeps the loudest ``capacity`` rows, gives each a new gain where
    /// `regain` says (a dormant voice's exact one), and sorts them loudest first.
    ///
    /// - Parameter regain: the row's new gain, or nil to keep it.
    mutating func sortLoudestFirst(regaining regain: (VoicePool.TelemetryRow) -> Float? = { _ in nil }) {
        if keys.count > capacity { keepLoudest() }
        keys.withUnsafeMutableBufferPointer { keys in
            for i in keys.indices {
                if let gain = regain(Self.row(of: keys[i])) {
                    keys[i] = Self.key(VoicePool.TelemetryRow(gain: gain, row: Self.row(of: keys[i]).row))
                }
            }
            Self.sortInPlace(keys)
        }
    }

    /// Sorts `keys` (all different) ascending where they are: a quicksort
    /// with a median-of-three pivot, and an insertion sort under 16 keys.
    /// The standard library's sort is stable, so it allocates a buffer for
    /// its merges and looks the buffer's type up on every call.
    static func sortInPlace(_ keys: UnsafeMutableBufferPointer<UInt64>) {
        var low = 0
        var high = keys.count - 1
        while high - low >= 16 {
            let store = partition(keys, low: low, high: high)
            // The smaller side by recursion, the larger by the loop: a depth of log n at most.
            if store - low < high - store {
                sortInPlace(UnsafeMutableBufferPointer(rebasing: keys[low..<store]))
                low = store + 1
            } else {
                sortInPlace(UnsafeMutableBufferPointer(rebasing: keys[(store + 1)..<(high + 1)]))
                high = store - 1
            }
        }
        guard low < high else { return }
        for i in (low + 1)...high {
            let key = keys[i]
            var j = i
            while j > low && keys[j - 1] > key {
                keys[j] = keys[j - 1]
                j -= 1
            }
            keys[j] = key
        }
    }

    /// Partitions `keys[low...high]` around a median-of-three pivot and
    /// returns where the pivot ends: every key before it is smaller, every
    /// key after it larger (the sort's and the selection's one step).
    ///
    /// - Parameters:
    ///   - keys: The keys, all different.
    ///   - low: The first index of the range.
    ///   - high: The last index of the range, above `low`.
    private static func partition(_ keys: UnsafeMutableBufferPointer<UInt64>, low: Int, high: Int) -> Int {
        let mid = low + (high - low) / 2
        if keys[mid] < keys[low] { keys.swapAt(mid, low) }
        if keys[high] < keys[low] { keys.swapAt(high, low) }
        if keys[mid] < keys[high] { keys.swapAt(mid, high) }
        let pivot = keys[high]
        var store = low
        for i in low..<high where keys[i] < pivot {
            keys.swapAt(i, store)
            store += 1
        }
        keys.swapAt(store, high)
        return store
    }

    /// Keeps the ``capacity`` smallest keys (the loudest rows), unordered, and raises the floor to the largest of them.
    private mutating func keepLoudest() {
        let k = capacity
        keys.withUnsafeMutableBufferPointer { Self.moveSmallest(k, toFrontOf: $0) }
        keys.removeLast(keys.count - k)
        floor = keys.max() ?? 0
    }

    /// Moves the `k` smallest of `keys` (all different) to its front, in no
    /// order: Hoare's selection with a median-of-three pivot.
    static func moveSmallest(_ k: Int, toFrontOf keys: UnsafeMutableBufferPointer<UInt64>) {
        guard k > 0, k < keys.count else { return }
        var low = 0
        var high = keys.count - 1
        while low < high {
            let store = partition(keys, low: low, high: high)
            if store == k - 1 || store == k {
                return
            } else if store < k {
                low = store + 1
            } else {
                high = store - 1
            }
        }
    }

    /// A row's key: smaller is louder (the gain's bits, ordered and
    /// inverted), then the lower row. Silence, −0 and NaN read as 0.
    static func key(_ row: VoicePool.TelemetryRow) -> UInt64 {
        let gain = row.gain.isNaN || row.gain == 0 ? 0 : row.gain
        let bits = gain.bitPattern
        // Rising with the gain for any float: a negative one's bits flipped, a positive one's sign set.
        let ordered = bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
        return UInt64(~ordered) << 32 | UInt64(UInt32(bitPattern: row.row))
    }

    /// The row a key was made from (``key(_:)`` undone).
    static func row(of key: UInt64) -> VoicePool.TelemetryRow {
        let ordered = ~UInt32(truncatingIfNeeded: key >> 32)
        let bits = ordered & 0x8000_0000 != 0 ? ordered & 0x7FFF_FFFF : ~ordered
        return VoicePool.TelemetryRow(
            gain: Float(bitPattern: bits), row: Int32(bitPattern: UInt32(truncatingIfNeeded: key)))
    }
}
