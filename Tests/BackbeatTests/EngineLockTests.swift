import Testing
import Backbeat
import BackbeatSupport

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
