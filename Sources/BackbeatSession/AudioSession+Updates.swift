extension AudioSession {
    /// Called with every update the session applies, in order, on the thread
    /// that applies it. It may post to the session; the post is applied after
    /// the callback returns.
    public var onUpdate: (@Sendable (SessionUpdate) -> Void)? {
        get { state.withLockedValue { $0.onUpdate } }
        set { state.withLockedValue { $0.onUpdate = newValue } }
    }

    /// A new stream of every update the session applies from now on, in order.
    /// The stream buffers without limit until read; it finishes when the session is released.
    public func updates() -> AsyncStream<SessionUpdate> {
        let (stream, continuation) = AsyncStream<SessionUpdate>.makeStream(bufferingPolicy: .unbounded)
        let id = state.withLockedValue { s -> UInt64 in
            defer { s.nextContinuationID += 1 }
            s.continuations[s.nextContinuationID] = continuation
            return s.nextContinuationID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLockedValue { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func deliver(_ update: SessionUpdate) {
        let (callback, continuations) = state.withLockedValue { ($0.onUpdate, Array($0.continuations.values)) }
        callback?(update)
        for continuation in continuations { continuation.yield(update) }
    }
}
