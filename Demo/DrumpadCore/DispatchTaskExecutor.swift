import Dispatch

/// Runs tasks on a serial dispatch queue instead of Swift's cooperative pool.
///
/// The demo's commands are synchronous and sometimes need an async library
/// call (an asset's tags). Waiting on a plain `Task` would block the caller
/// until a pool thread runs it; when the caller is itself on the pool (a test,
/// a game's task) and the pool is small, that never happens. Tasks that
/// prefer this executor run on its own queue, so the wait always ends.
final class DispatchTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) { queue = DispatchQueue(label: label) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
