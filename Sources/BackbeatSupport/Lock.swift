#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

#if DEBUG
import Synchronization
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
/// shows up in tests instead of deadlocking. It also records which thread
/// holds the lock, so ``preconditionHeld(_:file:line:)`` can check that a
/// member documented "with the lock held" is reached that way; a release
/// build records nothing and checks nothing.
package final class Lock: @unchecked Sendable {
    // @unchecked: the mutex is the synchronisation.
    let mutex: UnsafeMutablePointer<pthread_mutex_t>

    #if DEBUG
    /// The thread holding the lock (its `pthread_self()`), or 0. Atomic so
    /// that a thread asking whether it holds the lock reads a whole value;
    /// only the holder ever finds its own identity there.
    private let owner = Atomic<UInt>(0)

    private static var currentThread: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
    #endif

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
        #if DEBUG
        owner.store(Self.currentThread, ordering: .relaxed)
        #endif
    }

    /// Takes the lock if no thread holds it, without waiting.
    ///
    /// - Returns: Whether this thread now holds it (then pair with ``unlock()``).
    package func tryLock() -> Bool {
        guard pthread_mutex_trylock(mutex) == 0 else { return false }
        #if DEBUG
        owner.store(Self.currentThread, ordering: .relaxed)
        #endif
        return true
    }

    /// Runs `body` holding the lock if no thread holds it now; nil, without
    /// running it, when one does.
    @inlinable
    package func withLockIfFree<T>(_ body: () throws -> T) rethrows -> T? {
        guard tryLock() else { return nil }
        defer { unlock() }
        return try body()
    }

    /// Releases the lock, which this thread holds.
    package func unlock() {
        #if DEBUG
        owner.store(0, ordering: .relaxed)
        #endif
        let error = pthread_mutex_unlock(mutex)
        precondition(error == 0, "pthread_mutex_unlock failed: \(error)")
    }

    /// Whether the calling thread holds the lock. Debug builds only: a
    /// release build does not track the holder.
    #if DEBUG
    package var isHeldByCurrentThread: Bool {
        owner.load(ordering: .relaxed) == Self.currentThread
    }
    #endif

    /// Traps, in a debug build, unless the calling thread holds the lock,
    /// as swift-nio's `preconditionInEventLoop`. A release build does nothing.
    ///
    /// - Parameters:
    ///   - message: What was reached without the lock, for the trap's message.
    ///   - file: The caller's file, for the trap's message.
    ///   - line: The caller's line, for the trap's message.
    package func preconditionHeld(
        _ message: @autoclosure () -> String = "", file: StaticString = #fileID, line: UInt = #line
    ) {
        #if DEBUG
        checkHeld(message(), file: file, line: line)
        #endif
    }

    #if DEBUG
    private func checkHeld(_ message: String, file: StaticString, line: UInt) {
        guard !isHeldByCurrentThread else { return }
        preconditionFailure(
            "Backbeat lock not held by this thread" + (message.isEmpty ? "" : ": \(message)"), file: file, line: line)
    }
    #endif

    /// Waits on `condition`, which the lock guards, until it is signalled or
    /// `deadline` passes, as `pthread_cond_timedwait`: the lock is released
    /// while waiting and held again on return. The holder record follows, so
    /// ``preconditionHeld(_:file:line:)`` stays true for the waiting thread
    /// and false for one that held the lock meanwhile.
    ///
    /// - Parameters:
    ///   - condition: A condition variable used only with this lock.
    ///   - deadline: When to give up, on the condition's clock.
    /// - Returns: `pthread_cond_timedwait`'s result (0, or `ETIMEDOUT`).
    package func wait(
        on condition: UnsafeMutablePointer<pthread_cond_t>, until deadline: UnsafePointer<timespec>
    ) -> Int32 {
        #if DEBUG
        owner.store(0, ordering: .relaxed)
        #endif
        let error = pthread_cond_timedwait(condition, mutex, deadline)
        #if DEBUG
        owner.store(Self.currentThread, ordering: .relaxed)
        #endif
        return error
    }

    /// Runs `body` holding the lock.
    @inlinable
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
