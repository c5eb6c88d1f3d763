/// The one event fan-out in Backbeat: handlers added with ``observe(_:)``,
/// each removable by its token, and streams from ``events()``, each with a
/// bounded buffer.
///
/// Buffering policy: a stream keeps the newest ``bufferLimit`` events its
/// consumer has not read yet and drops older ones, so a slow or abandoned
/// consumer costs bounded memory. Handlers are called synchronously by
/// ``send(_:)``, on the thread that sends; the owner decides which thread that
/// is (never one that feeds OpenAL, never under the engine lock).
package final class EventBroadcast<Event: Sendable>: Sendable {
    private struct Registry {
        var handlers: [(id: UInt64, body: @Sendable (Event) -> Void)] = []
        var streams: [UInt64: AsyncStream<Event>.Continuation] = [:]
        var finished = false
    }

    /// How many unread events each stream keeps (the newest).
    package let bufferLimit: Int
    private let registry = LockedValueBox(Registry())

    /// A broadcast whose streams keep the newest `bufferLimit` unread events.
    package init(bufferLimit: Int = 1_024) {
        precondition(bufferLimit > 0, "an event buffer holds at least one event")
        self.bufferLimit = bufferLimit
    }

    /// Calls `handler` with every event sent from now on, until the token is cancelled.
    package func observe(_ handler: @escaping @Sendable (Event) -> Void) -> ObservationToken {
        let id = UniqueID.next()
        registry.withLockedValue { $0.handlers.append((id, handler)) }
        return ObservationToken { [weak self] in
            self?.registry.withLockedValue { $0.handlers.removeAll { $0.id == id } }
        }
    }

    /// A new stream of every event sent from now on; it ends at ``finish()``,
    /// and a consumer that stops iterating removes it.
    package func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Event.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let id = UniqueID.next()
        let added = registry.withLockedValue { r -> Bool in
            guard !r.finished else { return false }
            r.streams[id] = continuation
            return true
        }
        guard added else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.registry.withLockedValue { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Whether nothing observes: senders may skip building events.
    package var hasObservers: Bool {
        registry.withLockedValue { !$0.handlers.isEmpty || !$0.streams.isEmpty }
    }

    /// Sends `event` to every handler (on this thread, in the order they were
    /// added) and every stream. A handler cancelled before its turn is skipped.
    package func send(_ event: Event) {
        // Nobody listening (the usual case for an engine's per-voice events):
        // one lock and a Bool, no snapshot.
        guard hasObservers else { return }
        let (handlers, streams) = registry.withLockedValue { ($0.handlers, Array($0.streams.values)) }
        for handler in handlers where isObserving(handler.id, among: handlers.count) {
            handler.body(event)
        }
        for stream in streams { stream.yield(event) }
    }

    /// Whether handler `id` is still registered. With one handler the snapshot
    /// just taken answers; with more, an earlier one may have cancelled a later one.
    private func isObserving(_ id: UInt64, among count: Int) -> Bool {
        count == 1 || registry.withLockedValue { r in r.handlers.contains { $0.id == id } }
    }

    /// Ends every stream; later ``events()`` calls return ended streams.
    /// Handlers stay registered (nothing more is sent once the owner is gone).
    package func finish() {
        let streams = registry.withLockedValue { r -> [AsyncStream<Event>.Continuation] in
            r.finished = true
            defer { r.streams.removeAll() }
            return Array(r.streams.values)
        }
        for stream in streams { stream.finish() }
    }
}
