#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value behind a ``Lock`` that threads can wait on, as swift-nio's
/// `ConditionLock`: a pthread condition variable on the monotonic clock, so
/// the thread sanitizer sees every edge.
///
/// Every change through ``withLockedValue(_:)`` wakes the waiters, which look
/// at the value again.
package final class ConditionLock<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only while `lock` is held.
    private let lock = Lock()
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    /// A condition lock holding `value`.
    package init(_ value: Value) {
        self.value = value
        condition = .allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        let error = pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        precondition(error == 0, "pthread_cond_init failed: \(error)")
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    /// Runs `body` with the value, holding the lock, then wakes every waiter.
    package func withLockedValue<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer {
            pthread_cond_broadcast(condition)
            lock.unlock()
        }
        return try body(&value)
    }

    /// Runs `body` with the value, holding the lock, and wakes the waiters
    /// only when it returns true (a change they wait for), so a repeated
    /// request costs no wakeup.
    package func update(_ body: (inout Value) -> Bool) {
        lock.lock()
        defer { lock.unlock() }
        if body(&value) { pthread_cond_broadcast(condition) }
    }

    /// Waits until `isDone` holds for the value, or until `deadline` (in
    /// ``MonotonicClock`` nanoseconds) has passed. Returns whether `isDone` held.
    package func wait(until deadline: UInt64, for isDone: (Value) -> Bool) -> Bool {
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        return lock.withLock {
            while !isDone(value) {
                let error = lock.wait(on: condition, until: &time)
                if error == ETIMEDOUT { return isDone(value) }
                precondition(error == 0, "pthread_cond_timedwait failed: \(error)")
            }
            return true
        }
    }
}

/// The monotonic clock (CLOCK_MONOTONIC) in nanoseconds: when a waiting
/// thread wakes. Never what behaviour depends on; that is engine time.
package enum MonotonicClock {
    /// Nanoseconds since an arbitrary point (the machine's boot).
    package static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
