/// The one source of identifiers in Backbeat: voice IDs, session player IDs,
/// stream entry IDs. Each call returns a number no other call in this process
/// returned, starting at 1.
package enum UniqueID {
    private static let last = LockedValueBox<UInt64>(0)

    /// A new identifier.
    package static func next() -> UInt64 {
        last.withLockedValue { value in
            value += 1
            return value
        }
    }
}
