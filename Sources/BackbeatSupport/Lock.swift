#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Backbeat's one lock: a pthread mutex, as swift-nio's `NIOLock`.
///
/// Not `Synchronization.Mutex`: on Linux its contended path runs inside
/// libswiftSynchronization, which the thread sanitizer does not instrument,
/// so the sanitizer misses the happens-before edge and reports races that are
/// not there. A pthread mutex it understands.
///
/// The lock is not recursive. A debug build checks (PTHREAD_MUTEX_ERRORCHECK)
/// and traps when the thread that holds it takes it again, so every nesting
/// shows up in tests instead of deadlocking.
package final class Lock: @unchecked Sendable {
    // @unchecked: the mutex is the synchronisation.
    let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A new, unlocked lock.
    package init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        #if DEBUG
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        #endif
        let error = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(error == 0, "pthread_mutex_init failed: \(error)")
    }

    deinit {
        let error = pthread_mutex_destroy(mutex)
        precondition(error == 0, "pthread_mutex_destroy failed: \(error)")
        mutex.deallocate()
    }

    /// Takes the lock, waiting for it. Pair with ``unlock()``; prefer ``withLock(_:)``.
    package func lock() {
        let error = pthread_mutex_lock(mutex)
        precondition(
            error == 0,
            error == EDEADLK
                ? "Backbeat lock taken again by the thread that holds it (the lock is not recursive)"
                : "pthread_mutex_lock failed: \(error)")
    }

    /// Releases the lock, which this thread holds.
    package func unlock() {
        let error = pthread_mutex_unlock(mutex)
        precondition(error == 0, "pthread_mutex_unlock failed: \(error)")
    }

    /// Runs `body` holding the lock.
    @inlinable
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
