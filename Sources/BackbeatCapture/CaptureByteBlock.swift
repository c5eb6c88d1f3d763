/// A block of records being filled, in memory the writer owns: reserved
/// (and written once, so its pages are the process's) when a capture
/// starts, and grown only when a burst outruns the writing thread.
///
/// Not an array: appending a record into it is one bounds check and the
/// stores, with no uniqueness check on every byte. The writer holds two
/// and trades them between the game and its thread; it frees them.
struct CaptureByteBlock {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private(set) var capacity: Int

    /// A block of `capacity` bytes, every page touched.
    ///
    /// - Parameter capacity: The bytes to reserve (at least one).
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        base = .allocate(capacity: self.capacity)
        base.initialize(repeating: 0, count: self.capacity)
    }

    /// Frees the memory. The block is unusable after.
    func deallocate() { base.deallocate() }

    /// The bytes written, for the time `body` runs.
    ///
    /// - Parameter body: Reads them.
    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Makes room for `bytes` more, growing (doubling) when there is not.
    ///
    /// - Parameter bytes: The bytes about to be written.
    /// - Returns: Where they go.
    mutating func room(for bytes: Int) -> UnsafeMutablePointer<UInt8> {
        if capacity - count < bytes {
            let grown = max(capacity * 2, count + bytes)
            let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
            moved.initialize(from: base, count: count)
            base.deallocate()
            base = moved
            capacity = grown
        }
        return base + count
    }

    /// Counts `bytes` written at ``room(for:)``'s pointer.
    ///
    /// - Parameter bytes: How many were written (no more than the room made).
    mutating func commit(_ bytes: Int) { count += bytes }

    /// Appends `bytes`.
    ///
    /// - Parameter bytes: The bytes to append.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        room(for: bytes.count).update(from: source.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        commit(bytes.count)
    }

    /// Appends `value` as ``CaptureEncoder`` writes an unsigned varint.
    ///
    /// - Parameter value: The value to append.
    mutating func appendVarint(_ value: UInt64) {
        let at = room(for: 10)
        var value = value
        var n = 0
        while value >= 0x80 {
            at[n] = UInt8(truncatingIfNeeded: value) | 0x80
            value >>= 7
            n += 1
        }
        at[n] = UInt8(value)
        commit(n + 1)
    }

    /// Forgets what was written, keeping the memory.
    mutating func removeAll() { count = 0 }
}
