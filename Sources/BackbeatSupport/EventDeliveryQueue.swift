/// A thread of its own that runs event deliveries in order: how a real-time
/// output keeps handlers off the thread that feeds OpenAL. A handler that
/// blocks delays later events, never the audio.
///
/// ``stop()`` lets the queued deliveries run and the thread end on its own;
/// it never waits for a handler, so a handler that never returns cannot hang
/// the engine's shutdown, and a handler may call shutdown itself.
///
/// Bounded: droppable jobs (batches of events) carry a weight (their event
/// count); while more than ``droppableLimit`` weigh on the queue, the oldest is
/// dropped and counted, so a handler that blocks costs bounded memory. Other
/// jobs (completions a caller waits for) are never dropped.
package final class EventDeliveryQueue: Sendable {
    private struct Job {
        var run: @Sendable () -> Void
        /// 0: never dropped; otherwise the events it delivers.
        var weight: Int
    }

    private struct State {
        var jobs: [Job] = []
        var droppableWaiting = 0
        var dropped = 0
        var stopping = false
        /// The number of jobs enqueued and the number run or dropped, so tests can wait for a drain.
        var enqueued = 0
        var ran = 0
    }

    /// How many events droppable jobs may hold, waiting, before the oldest job is dropped.
    package let droppableLimit: Int

    private let state = ConditionLock(State())
    private let thread: JoinableThread

    /// Starts the delivery thread, named `name`, keeping at most `droppableLimit` droppable events waiting.
    package init(name: String, droppableLimit: Int = 4_096) {
        precondition(droppableLimit > 0, "a delivery queue keeps at least one job")
        self.droppableLimit = droppableLimit
        let state = self.state
        // The thread detaches itself when it ends: nobody joins it (that would
        // wait for handlers), and an owner kept alive by its own handlers never
        // reaches the deinit that would.
        let handle = LockedValueBox<JoinableThread?>(nil)
        thread = JoinableThread(name: name) {
            while true {
                _ = state.wait(until: .max) { !$0.jobs.isEmpty || $0.stopping }
                let jobs = state.withLockedValue { s -> [Job]? in
                    if s.jobs.isEmpty { return s.stopping ? nil : [] }
                    defer {
                        s.jobs.removeAll(keepingCapacity: true)
                        s.droppableWaiting = 0
                    }
                    return s.jobs
                }
                guard let jobs else { break }
                for job in jobs { job.run() }
                state.withLockedValue { $0.ran += jobs.count }
            }
            handle.withLockedValue { thread in
                defer { thread = nil }
                return thread
            }?.joinUnlessCurrent()
        }
        handle.withLockedValue { $0 = thread }
        thread.start()
    }

    deinit {
        // Whatever is queued still runs; then the thread ends.
        state.withLockedValue { $0.stopping = true }
    }

    /// Queues `job` to run after every job queued before it. A job that
    /// delivers `droppableEvents` events (more than zero) may be dropped, oldest
    /// first, while more than ``droppableLimit`` such events wait.
    /// After ``stop()``, runs nothing.
    package func enqueue(droppableEvents: Int = 0, _ job: @escaping @Sendable () -> Void) {
        state.withLockedValue { s in
            guard !s.stopping else { return }
            let weight = max(0, droppableEvents)
            s.jobs.append(Job(run: job, weight: weight))
            s.enqueued += 1
            s.droppableWaiting += weight
            while s.droppableWaiting > droppableLimit, let oldest = s.jobs.firstIndex(where: { $0.weight > 0 }) {
                s.droppableWaiting -= s.jobs[oldest].weight
                s.dropped += s.jobs[oldest].weight
                s.jobs.remove(at: oldest)
                s.ran += 1
            }
        }
    }

    /// How many droppable events wait now, and how many were dropped so far.
    package var droppableCounts: (waiting: Int, dropped: Int) {
        state.withLockedValue { ($0.droppableWaiting, $0.dropped) }
    }

    /// Queues `last`, then lets the thread end once everything queued has run.
    package func stop(after last: @escaping @Sendable () -> Void) {
        state.withLockedValue { s in
            guard !s.stopping else { return }
            s.jobs.append(Job(run: last, weight: 0))
            s.enqueued += 1
            s.stopping = true
        }
    }

    /// Whether the calling thread is the delivery thread.
    package var isCurrent: Bool { thread.isCurrent }

    /// Waits until every job queued so far has run, or `deadline` (``MonotonicClock``
    /// nanoseconds) passes. Returns whether they ran. For tests and shutdown paths
    /// that want events delivered before they look; never call it from a handler.
    package func waitUntilDrained(until deadline: UInt64) -> Bool {
        let target = state.withLockedValue { $0.enqueued }
        return state.wait(until: deadline) { $0.ran >= target }
    }
}
