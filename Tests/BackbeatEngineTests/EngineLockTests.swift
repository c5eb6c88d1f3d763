import Backbeat
import BackbeatSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The engine lock's debug-build check: a `…Locked` member reached without
/// the lock traps, and the same member with the lock held does not.
@Suite("EngineLock")
struct EngineLockTests {
    @Test func lockedMemberPassesWithTheLockHeld() throws {
        let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
        defer { engine.shutdown() }
        _ = try engine.render(frames: 480)
        let frame = engine.withLock { engine.currentFrameLocked }
        #expect(frame == 480)
        let running = engine.withLock { engine.isRunningLocked }
        #expect(running)
        #expect(engine.withLock { engine.busLocked(named: "music") } === engine.musicBus)
    }

    @Test func lockIsNotHeldOutsideWithLock() throws {
        #if DEBUG
        let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
        defer { engine.shutdown() }
        #expect(!engine.lock.isHeldByCurrentThread)
        engine.withLock { #expect(engine.lock.isHeldByCurrentThread) }
        #expect(!engine.lock.isHeldByCurrentThread)
        #endif
    }

    #if DEBUG
    /// A condition variable and the flag it announces, shared with a second thread.
    private final class Signal: @unchecked Sendable {
        // @unchecked: `raised` is read and written only under the test's lock.
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        var raised = false
        init() { pthread_cond_init(condition, nil) }
        deinit {
            pthread_cond_destroy(condition)
            condition.deallocate()
        }
    }

    @Test func waitingOnAConditionKeepsTheHolderRecord() {
        // The waiting thread lets the lock go; another takes it, raises the
        // flag and lets it go. The waiter wakes holding the lock again, and
        // the record says so (it said nobody before Lock.wait kept it).
        let lock = Lock()
        let signal = Signal()
        lock.lock()
        let other = JoinableThread(name: "Backbeat lock test") {
            lock.withLock {
                signal.raised = true
                pthread_cond_signal(signal.condition)
            }
            #expect(!lock.isHeldByCurrentThread)
        }
        other.start()
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_sec += 10
        while !signal.raised {
            if lock.wait(on: signal.condition, until: &deadline) == ETIMEDOUT { break }
        }
        #expect(signal.raised)
        #expect(lock.isHeldByCurrentThread)
        lock.unlock()
        other.joinUnlessCurrent()
        #expect(!lock.isHeldByCurrentThread)
    }

    @Test func lockedMemberWithoutTheLockTraps() async {
        await #expect(processExitsWith: .failure) {
            let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
            _ = engine.currentFrameLocked
        }
    }

    @Test func busStateWithoutTheLockTraps() async {
        await #expect(processExitsWith: .failure) {
            let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
            _ = engine.musicBus.effectiveGain(at: 0)
        }
    }
    #endif
}
