/// A value behind a ``Lock``, as swift-nio's `NIOLockedValueBox`: the only
/// way to the value is ``withLockedValue(_:)``.
package final class LockedValueBox<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only while `lock` is held.
    private let lock = Lock()
    private var value: Value

    /// A box holding `value`.
    package init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, holding the lock.
    package func withLockedValue<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&value) }
    }
}
