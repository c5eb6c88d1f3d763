import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AudioEngine {
    /// A new stream of every ``PlaybackEvent`` from now on. Each call makes its
    /// own stream; it ends when the engine shuts down. It keeps the newest
    /// 4,096 events its consumer has not read and drops older ones.
    public func events() -> AsyncStream<PlaybackEvent> {
        eventBroadcast.events()
    }

    /// Calls `handler` with every event until the returned token is cancelled.
    ///
    /// Handlers never run under the engine lock (they may call the engine) nor on
    /// the thread that feeds OpenAL: an offline or fast `.file` output calls them
    /// on the thread that called ``render(frames:)`` or ``advance(by:)``; a
    /// `.device` or paced `.file` output on a delivery thread of its own, in order.
    ///
    /// - Parameter handler: Called with each ``PlaybackEvent``, in order.
    /// - Returns: A token that removes the handler when cancelled (dropping it does not).
    @discardableResult
    public func observe(_ handler: @escaping @Sendable (PlaybackEvent) -> Void) -> ObservationToken {
        eventBroadcast.observe(handler)
    }

    /// Queues an event, with the lock held; delivered by ``deliverPendingEvents()`` once unlocked.
    /// An event that tells of a problem is also logged (`AudioEngine+Logging.swift`).
    package func postLocked(_ event: PlaybackEvent) {
        preconditionLocked()
        logProblemLocked(event)
        pendingEvents.append(.event(event))
    }

    /// Queues a callback (a voice completion, a fade completion, a player's
    /// event), with the lock held, to run once unlocked, where events run.
    package func postLocked(callback: @escaping @Sendable () -> Void) {
        preconditionLocked()
        pendingEvents.append(.callback(callback))
    }

    /// Runs `body` (ending a component's event streams) after every event and
    /// callback queued so far has been delivered, where they are delivered.
    package func afterPendingEvents(_ body: @escaping @Sendable () -> Void) {
        withLock { postLocked(callback: body) }
        deliverPendingEvents()
    }

    /// Delivers queued events and callbacks outside the lock: here, or on a
    /// real-time output's delivery thread.
    package func deliverPendingEvents() {
        // Called after every render: nothing queued must cost next to nothing.
        // Two arrays take turns (the queue and the batch being delivered), so
        // that posting and delivering allocate nothing once both have grown.
        var batch: [PendingDelivery] = []
        var delivery: EventDeliveryQueue?
        let any = withLock(waking: false) { () -> Bool in
            guard !pendingEvents.isEmpty else { return false }
            swap(&batch, &spareEventBatch)
            swap(&batch, &pendingEvents)
            delivery = eventDelivery
            return true
        }
        guard any else { return }
        defer {
            batch.removeAll(keepingCapacity: true)
            withLock(waking: false) { if batch.capacity > spareEventBatch.capacity { swap(&batch, &spareEventBatch) } }
        }
        let broadcast = eventBroadcast
        guard let delivery else {
            Self.deliver(batch, to: broadcast)
            return
        }
        // Runs of plain events may be dropped, oldest first, if a handler blocks
        // long enough for more than 4,096 events to wait; callbacks (completions) never are.
        var run: [PendingDelivery] = []
        func flushEvents() {
            guard !run.isEmpty else { return }
            let events = run
            run = []
            delivery.enqueue(droppableEvents: events.count) { Self.deliver(events, to: broadcast) }
        }
        for item in batch {
            if case .callback(let callback) = item {
                flushEvents()
                delivery.enqueue(callback)
            } else {
                run.append(item)
            }
        }
        flushEvents()
    }

    /// How many events wait for a real-time output's delivery thread, and how
    /// many were dropped because a handler held it; nil on other outputs.
    package var eventDeliveryBacklog: (waiting: Int, dropped: Int)? {
        withLock { eventDelivery }?.droppableCounts
    }

    /// Session updates go where the engine's events go: a real-time output's
    /// session may apply an update on the audio thread (a scripted environment's
    /// step), and its observers must not run there.
    func deliverSessionUpdatesOffTheAudioThread() {
        guard let delivery = eventDelivery else { return }
        session.setUpdateDelivery { job in delivery.enqueue(job) }
    }

    /// Waits until a real-time output's delivery thread has delivered every
    /// event posted so far, or `seconds` of wall time pass (the wall clock only
    /// bounds the wait). Returns at once on other outputs, which deliver inline.
    package func waitForEventDelivery(atMost seconds: Double) -> Bool {
        guard let delivery = withLock({ eventDelivery }), !delivery.isCurrent else { return true }
        return delivery.waitUntilDrained(until: MonotonicClock.now() + UInt64(max(0, seconds) * 1e9))
    }

    private static func deliver(_ batch: [PendingDelivery], to broadcast: EventBroadcast<PlaybackEvent>) {
        // Nobody listening is the usual case for per-voice events (a world's
        // voices coming into and going out of earshot): asked once, and again
        // after each callback, which may start listening.
        var listening = broadcast.hasObservers
        for item in batch {
            switch item {
            case .event(let event):
                if listening { broadcast.send(event) }
            case .callback(let callback):
                callback()
                listening = broadcast.hasObservers
            }
        }
    }
}

/// An event or callback waiting to be delivered outside the engine lock.
enum PendingDelivery: @unchecked Sendable {
    // @unchecked: PlaybackEvent is Sendable and the callback is @Sendable;
    // the enum only carries them to the thread that delivers.
    case event(PlaybackEvent)
    case callback(@Sendable () -> Void)
}
