import BackbeatAcoustics
import Foundation
import Synchronization

/// A game's frame loop on a thread of its own, calling
/// ``AcousticSimulation/update()`` once for each game frame the engine side
/// announces (``frameRendered()``), as a game calls it from its own thread:
/// the engine never waits for it, and when an update takes longer than the
/// engine takes to render a frame, the next update starts from the newest
/// frame (the frames in between had none).
final class AcousticsGameThread: Sendable {
    private let frames = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private let tally = Mutex((updates: 0, cpuNanoseconds: UInt64(0)))

    /// Starts the thread.
    ///
    /// - Parameter simulation: The simulation it updates.
    init(simulation: AcousticSimulation) {
        Thread { [self] in
            while true {
                frames.wait()
                // Frames announced while the last update ran: one update serves them all.
                while frames.wait(timeout: .now()) == .success {}
                if stopped.load(ordering: .acquiring) { break }
                let start = threadCPUNanoseconds()
                simulation.update()
                let spent = threadCPUNanoseconds() - start
                tally.withLock {
                    $0.updates += 1
                    $0.cpuNanoseconds += spent
                }
            }
            done.signal()
        }.start()
    }

    /// Tells the thread a game frame was moved and rendered.
    func frameRendered() { frames.signal() }

    /// Ends the thread after its update under way, and returns how many
    /// updates it made and their thread CPU time in all.
    func stop() -> (updates: Int, cpuNanoseconds: UInt64) {
        stopped.store(true, ordering: .releasing)
        frames.signal()
        done.wait()
        return tally.withLock { $0 }
    }
}
