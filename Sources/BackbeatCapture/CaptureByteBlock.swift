/// A block of records being filled, in memory the writer owns: reserved
/// (and written once, so its pages are the process's) when a capture
/// starts, and grown only when a burst outruns the writing thread.
///
/// Not an array: appending a record into it is one bounds check and the
/// stores, with no uniqueness check on every byte. The writer holds two
/// and trades them between the game and its thread.
struct CaptureByteBlock {
    /// The memory, freed with its last block.
    private final class Storage {
        let base: UnsafeMutablePointer<UInt8>
        let capacity: Int

        init(capacity: Int) {
            self.capacity = max(1, capacity)
            base = .allocate(capacity: self.capacity)
            base.initialize(repeating: 0, count: self.capacity)
        }

        deinit { base.deallocate() }
    }

    private var storage: Storage
    private(set) var count = 0

    /// A block of `capacity` bytes, every page touched.
    ///
    /// - Parameter capacity: The bytes to reserve (at least one).
    init(capacity: Int) {
        storage = Storage(capacity: capacity)
    }

    private var base: UnsafeMutablePointer<UInt8> { storage.base }

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
        if storage.capacity - count < bytes {
            let grown = Storage(capacity: max(storage.capacity * 2, count + bytes))
            grown.base.update(from: base, count: count)
            storage = grown
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
        commit(Self.putVarint(value, at: room(for: 10)))
    }

    /// Writes `value` as a varint at `at` (room for 10 bytes); returns the bytes written.
    ///
    /// - Parameters:
    ///   - value: The value to write.
    ///   - at: Where to write it.
    static func putVarint(_ value: UInt64, at: UnsafeMutablePointer<UInt8>) -> Int {
        var value = value
        var n = 0
        while value >= 0x80 {
            at[n] = UInt8(truncatingIfNeeded: value) | 0x80
            value >>= 7
            n += 1
        }
        at[n] = UInt8(value)
        return n + 1
    }

    /// Forgets what was written, keeping the memory.
    mutating func removeAll() { count = 0 }
}
