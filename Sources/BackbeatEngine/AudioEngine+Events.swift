#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AudioEngine {
    /// A new stream of every ``PlaybackEvent`` from now on. Each call makes its
    /// own stream; it ends when the engine shuts down.
    public func events() -> AsyncStream<PlaybackEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: PlaybackEvent.self, bufferingPolicy: .bufferingNewest(4_096))
        withLock {
            if isRunningLocked { eventContinuations.append(continuation) } else { continuation.finish() }
        }
        return stream
    }

    /// Calls `handler` with every event, on the thread that rendered or
    /// played (never while the engine is locked, so it may call the engine).
    public func onEvent(_ handler: @escaping @Sendable (PlaybackEvent) -> Void) {
        withLock { eventHandlers.append(handler) }
    }

    /// Queues an event, with the lock held; delivered by ``deliverPendingEvents()`` once unlocked.
    package func postLocked(_ event: PlaybackEvent) {
        pendingEvents.append(.event(event))
    }

    /// Queues a callback (a voice completion, a fade completion), with the
    /// lock held, to run once unlocked.
    package func postLocked(callback: @escaping @Sendable () -> Void) {
        pendingEvents.append(.callback(callback))
    }

    /// Delivers queued events and callbacks, outside the lock.
    package func deliverPendingEvents() {
        // Called after every render: nothing queued must cost next to nothing.
        let taken = withLock { () -> ([PendingDelivery], [@Sendable (PlaybackEvent) -> Void], [AsyncStream<PlaybackEvent>.Continuation])? in
            guard !pendingEvents.isEmpty else { return nil }
            let batch = pendingEvents
            pendingEvents.removeAll(keepingCapacity: true)
            return (batch, eventHandlers, eventContinuations)
        }
        guard let (batch, handlers, continuations) = taken else { return }
        for item in batch {
            switch item {
            case .event(let event):
                for handler in handlers { handler(event) }
                for continuation in continuations { continuation.yield(event) }
            case .callback(let callback):
                callback()
            }
        }
    }
}

/// An event or callback waiting to be delivered outside the engine lock.
enum PendingDelivery {
    case event(PlaybackEvent)
    case callback(@Sendable () -> Void)
}
