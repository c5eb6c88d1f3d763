/// A thread of its own that runs event deliveries in order: how a real-time
/// output keeps handlers off the thread that feeds OpenAL. A handler that
/// blocks delays later events, never the audio.
///
/// ``stop()`` lets the queued deliveries run and the thread end on its own;
/// it never waits for a handler, so a handler that never returns cannot hang
/// the engine's shutdown, and a handler may call shutdown itself.
package final class EventDeliveryQueue: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var stopping = false
        /// The number of jobs enqueued and the number run, so tests can wait for a drain.
        var enqueued = 0
        var ran = 0
    }

    private let state = ConditionLock(State())
    private let thread: JoinableThread

    /// Starts the delivery thread, named `name`.
    package init(name: String) {
        let state = self.state
        // The thread detaches itself when it ends: nobody joins it (that would
        // wait for handlers), and an owner kept alive by its own handlers never
        // reaches the deinit that would.
        let handle = LockedValueBox<JoinableThread?>(nil)
        thread = JoinableThread(name: name) {
            while true {
                _ = state.wait(until: .max) { !$0.jobs.isEmpty || $0.stopping }
                let jobs = state.withLockedValue { s -> [@Sendable () -> Void]? in
                    if s.jobs.isEmpty { return s.stopping ? nil : [] }
                    defer { s.jobs.removeAll(keepingCapacity: true) }
                    return s.jobs
                }
                guard let jobs else { break }
                for job in jobs { job() }
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

    /// Queues `job` to run after every job queued before it. After ``stop()``, runs nothing.
    package func enqueue(_ job: @escaping @Sendable () -> Void) {
        state.withLockedValue { s in
            guard !s.stopping else { return }
            s.jobs.append(job)
            s.enqueued += 1
        }
    }

    /// Queues `last`, then lets the thread end once everything queued has run.
    package func stop(after last: @escaping @Sendable () -> Void) {
        state.withLockedValue { s in
            guard !s.stopping else { return }
            s.jobs.append(last)
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
