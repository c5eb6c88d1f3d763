import BackbeatSupport

extension AudioSession {
    /// Calls `handler` with every update the session applies, in order, on the
    /// thread that applies it, until the returned token is cancelled. It may
    /// post to the session; the post is applied after the handler returns.
    ///
    /// - Parameter handler: Called with each ``SessionUpdate``.
    /// - Returns: A token; cancel it (or let it go) to stop the calls.
    @discardableResult
    public func observe(_ handler: @escaping @Sendable (SessionUpdate) -> Void) -> ObservationToken {
        broadcast.observe(handler)
    }

    /// A new stream of every update the session applies from now on, in order.
    /// It keeps the newest 1,024 updates its consumer has not read and drops
    /// older ones; it finishes when the session is released.
    public func events() -> AsyncStream<SessionUpdate> {
        broadcast.events()
    }

    /// Hands update delivery to `deliver` (a real-time engine's delivery thread,
    /// so observers never run on the thread that feeds OpenAL); nil delivers on
    /// the thread that applied the update.
    package func setUpdateDelivery(_ deliver: (@Sendable (@escaping @Sendable () -> Void) -> Void)?) {
        state.withLockedValue { $0.updateDelivery = deliver }
    }

    func deliver(_ update: SessionUpdate) {
        let broadcast = self.broadcast
        if let delivery = state.withLockedValue({ $0.updateDelivery }) {
            delivery { broadcast.send(update) }
        } else {
            broadcast.send(update)
        }
    }
}
