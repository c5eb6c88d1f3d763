/// What `EventBroadcast.observe(_:)` returns: keep it to remove the handler
/// later with ``cancel()``.
///
/// Dropping the token does not remove the handler (a game that never wants to
/// stop observing need not keep it). Every type in Backbeat that reports
/// things offers `observe(_:) -> ObservationToken` and `events() -> AsyncStream`.
public final class ObservationToken: Sendable, Hashable {
    private let onCancel: LockedValueBox<(@Sendable () -> Void)?>

    /// A token that runs `onCancel` the first time it is cancelled.
    package init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = LockedValueBox(onCancel)
    }

    /// Removes the handler. Events sent after this returns do not reach it; a
    /// delivery already under way on another thread may still finish. Idempotent.
    public func cancel() {
        let body = onCancel.withLockedValue { body in
            defer { body = nil }
            return body
        }
        body?()
    }

    /// Whether ``cancel()`` has run.
    public var isCancelled: Bool { onCancel.withLockedValue { $0 == nil } }

    /// Whether `a` and `b` are the same token (identity, not state).
    ///
    /// - Parameters:
    ///   - a: A token.
    ///   - b: Another token.
    public static func == (a: ObservationToken, b: ObservationToken) -> Bool { a === b }
    /// Hashes the token's identity.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
