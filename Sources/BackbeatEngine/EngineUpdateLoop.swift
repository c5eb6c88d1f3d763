import BackbeatOpenAL
import BackbeatSupport

/// The update loop of a real-time output: the thread that steps a `.device`
/// engine (OpenAL mixes on its own; the thread sleeps until work is due or
/// the game changes something) or renders a paced `.file` engine one update
/// period at a time, its wakeups, and its stop.
///
/// The engine owns one and keeps everything else the loop acts on (the
/// clock, the components, the device), as GRDB's `SerializedDatabase` runs a
/// `Database` it does not own. Offline and fast-file engines never start it.
final class EngineUpdateLoop: @unchecked Sendable {
    // @unchecked: `thread`, `isStopping` and `wakesOnChange` are read and
    // written only under the engine lock (checked in debug builds), except
    // that `start` sets `thread` and `wakesOnChange` once, in the engine's
    // init, before the thread or any other caller sees the loop; `progress`
    // locks itself.

    /// What the thread reports and is told.
    struct Progress {
        /// Engine time as of the thread's last step.
        var frame: Int64 = 0
        /// Steps the thread has taken (each one a wakeup).
        var steps = 0
        /// Shutdown asked the thread to end.
        var stopRequested = false
        /// The game changed something since the thread's last step: a device's
        /// update loop looks again at what is due.
        var wakeRequested = false
    }

    /// How the thread waits after a step.
    enum Wait {
        /// One update period, on the fixed schedule (the thread renders).
        case paced
        /// Until the next thing is due, this many nanoseconds from now, or
        /// until the game changes something (a device: OpenAL mixes on its own).
        case due(UInt64)
    }

    /// The longest a device's update loop sleeps with nothing due: it reads
    /// the device's connection state (ALC_EXT_disconnect) at least this
    /// often, 10 times a second. Following the default output does not
    /// depend on it (the device watch hears the sound server's own events).
    /// Every wakeup costs CPU: at 50 ms, the poll doubled the wakeups of a
    /// scene whose only work was a music stream's refills (every 83 ms).
    static let devicePollNanoseconds: UInt64 = 100_000_000

    /// The engine's lock, which guards `thread`, `isStopping` and `wakesOnChange`.
    private let engineLock: Lock
    /// The thread's progress and stop request: it wakes for a stop, and the
    /// shutdown fade waits on its progress.
    private let progress = ConditionLock(Progress())
    private var thread: JoinableThread?
    private var isStopping = false
    /// Whether the loop sleeps until work is due (a `.device` output), so changes must wake it.
    private var wakesOnChange = false

    /// A loop for the engine whose lock is `engineLock`; nothing runs until ``start(for:rendering:)``.
    init(engineLock: Lock) {
        self.engineLock = engineLock
    }

    /// Starts the thread, from the engine's init.
    ///
    /// - Parameters:
    ///   - engine: The engine to step; the thread holds it only during a step.
    ///   - rendering: Whether the thread renders each period (a paced file)
    ///     rather than stepping a device that mixes on its own.
    func start(for engine: AudioEngine, rendering: Bool) {
        wakesOnChange = !rendering
        let period = UInt64(Double(engine.updateInterval) / Double(engine.sampleRate) * 1e9)
        let samplesPerStep = engine.updateInterval * engine.channelCount
        let progress = self.progress
        // The thread holds the engine only during a step, so dropping the last
        // reference shuts the engine down; if that happens on this thread,
        // shutdown detaches it instead of joining it.
        let thread = JoinableThread(name: "Backbeat engine") { [weak engine] in
            var start = MonotonicClock.now()
            var steps: UInt64 = 0
            var lastStep = start
            var buffer = [Float](repeating: 0, count: samplesPerStep)
            loop: while let next = Self.step(of: engine, rendering: rendering, buffer: &buffer) {
                switch next {
                case .paced:
                    // Rendering (a paced file, or a lost device's silent stand-in):
                    // one update period per step, on a fixed schedule.
                    steps += 1
                    if progress.wait(until: start + steps * period, for: \.stopRequested) { break loop }
                case .due(let nanoseconds):
                    // A device: sleeps until the next thing is due, or until the
                    // game changes something (then out the rest of the period:
                    // it never steps twice within one), or until shutdown.
                    let earliest = lastStep + period
                    let deadline = max(MonotonicClock.now() + nanoseconds, earliest)
                    if progress.wait(until: deadline, for: { $0.stopRequested || $0.wakeRequested }),
                        progress.wait(until: earliest, for: \.stopRequested)
                    {
                        break loop
                    }
                    lastStep = MonotonicClock.now()
                    // Should the device be lost, pacing starts from here.
                    start = lastStep
                    steps = 0
                }
            }
            ALDevice.clearThreadContext()
        }
        // Known before the thread runs, so it can tell it is itself.
        self.thread = thread
        thread.start()
    }

    /// One step of a real-time output, on its thread: the step observers; under
    /// the lock, an update step when the device clock has reached the next
    /// boundary, or (for a paced file) one rendered update period; then the
    /// events the step queued. Behaviour reads only engine time; the wall clock
    /// only decides when the thread wakes. Returns nil once the engine is
    /// gone or stopping.
    private static func step(of engine: AudioEngine?, rendering: Bool, buffer: inout [Float]) -> Wait? {
        guard let engine else { return nil }
        let loop = engine.updateLoop
        // Changes the game makes from here on wake the thread again.
        loop.progress.update { progress in
            progress.wakeRequested = false
            return false
        }
        let due = engine.withLock { () -> Int64? in
            guard loop.isRunningLocked(engine) else { return nil }
            return rendering || engine.device.isLoopback ? engine.framesRendered : engine.currentFrameLocked
        }
        guard let due else { return nil }
        engine.notifyStepObservers(at: due)
        let frame = engine.withLock { () -> (Int64, [@Sendable () -> Void], Wait)? in
            guard loop.isRunningLocked(engine) else { return nil }
            do {
                if !engine.device.isLoopback, !engine.device.isConnected {
                    engine.handleDisconnectLocked()
                }
                if rendering || engine.device.isLoopback {
                    _ = try engine.renderLocked(frames: engine.updateInterval, into: &buffer, observedStep: due)
                } else {
                    let frame = engine.currentFrameLocked
                    if frame >= engine.nextUpdateFrame {
                        try engine.runUpdateLocked(at: frame)
                        engine.nextUpdateFrame = frame + Int64(engine.updateInterval)
                    }
                }
            } catch let error as BackbeatError {
                engine.deferLocked(error)
            } catch {}
            let frame = engine.currentFrameLocked
            let wait: Wait =
                rendering || engine.device.isLoopback ? .paced : .due(sleepNanosecondsLocked(of: engine, at: frame))
            return (frame, engine.takeRecoveryWorkLocked(), wait)
        }
        guard let (frame, recovery, wait) = frame else { return nil }
        // A replacement's decoding is not for this thread: updates go on meanwhile.
        engine.runRecoveryWork(recovery)
        engine.deliverPendingEvents()
        loop.progress.withLockedValue {
            $0.frame = frame
            $0.steps += 1
        }
        return wait
    }

    /// How long a device's update loop may sleep after a step at `frame`:
    /// until the earliest frame a bus or component has work due (never
    /// before the next update period), and at most ``devicePollNanoseconds``.
    private static func sleepNanosecondsLocked(of engine: AudioEngine, at frame: Int64) -> UInt64 {
        engine.preconditionLocked()
        let due = max(engine.nextUpdateFrame, engine.nextDueFrameLocked(after: frame) ?? Int64.max)
        let poll = devicePollNanoseconds
        guard due < Int64.max, due > frame else { return due == Int64.max ? poll : 0 }
        let frames = Double(due - frame)
        return min(poll, UInt64(frames / Double(engine.sampleRate) * 1e9))
    }

    /// Traps, in a debug build, unless the engine lock is held. A release
    /// build does nothing (the call into the support module included).
    @inline(__always)
    private func preconditionEngineLocked(file: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
        engineLock.preconditionHeld("the engine's update loop", file: file, line: line)
        #endif
    }

    /// Whether the thread should go on.
    private func isRunningLocked(_ engine: AudioEngine) -> Bool {
        preconditionEngineLocked()
        return engine.isRunningLocked && !isStopping
    }

    /// Wakes a device's update loop to look again at what is due: the game
    /// changed something (a public entry point took the lock). Calls from
    /// the loop's own thread do not wake it.
    func wakeLocked() {
        preconditionEngineLocked()
        guard wakesOnChange, let thread, !thread.isCurrent else { return }
        progress.update { progress in
            guard !progress.wakeRequested else { return false }
            progress.wakeRequested = true
            return true
        }
    }

    /// Ends the thread: joins it, or, on the thread itself (a handler or the
    /// last release that shuts the engine down), lets it end on its own after
    /// this step, since a thread cannot join itself.
    ///
    /// - Parameter engine: The engine whose lock guards the loop.
    func stop(of engine: AudioEngine) {
        let thread = engine.withLock { () -> JoinableThread? in
            isStopping = true
            return self.thread
        }
        guard let thread else { return }
        progress.withLockedValue { $0.stopRequested = true }
        thread.joinUnlessCurrent()
    }

    /// Steps the thread has taken since the engine opened: each is one wakeup.
    var steps: Int { progress.withLockedValue { $0.steps } }

    /// Whether the caller is the loop's thread.
    var isCurrentThreadLocked: Bool {
        preconditionEngineLocked()
        return thread?.isCurrent ?? false
    }

    /// Waits until the thread has taken engine time to `frame`, or until
    /// `seconds` of wall time pass. The wall clock only bounds the wait;
    /// engine time decides when it is over.
    ///
    /// - Parameters:
    ///   - frame: The engine frame to wait for.
    ///   - seconds: The longest wait in wall time.
    func wait(toReach frame: Int64, atMost seconds: Double) {
        let giveUp = MonotonicClock.now() + UInt64(max(0, seconds) * 1e9)
        _ = progress.wait(until: giveUp) { $0.frame >= frame || $0.stopRequested }
    }
}
