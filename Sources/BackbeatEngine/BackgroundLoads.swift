import BackbeatSupport
import Synchronization

/// The loads under way off the render thread (a sound effect decoding on the
/// effect cache's loader) that an offline or fast-file render waits for.
///
/// On those outputs engine time moves only when the game renders, so a render
/// that ran ahead of a load would start the sound at whatever frame it had
/// reached when the load ended: a result that depends on the wall clock. The
/// render waits instead, outside the engine lock (the loader needs it to
/// finish), until every load begun before it has finished or failed.
///
/// A device, and a paced file, cannot wait: there a sound that is not loaded
/// yet starts late, and nothing is counted.
///
/// The check costs one atomic load when nothing is loading. A load that does
/// not end within ``limit`` is given up on: the render goes on without it (the
/// sound starts late when it arrives, as on a device), so a broken loader
/// cannot hang a render.
package final class BackgroundLoads: Sendable {
    /// Loads begun and not yet ended or given up on: the renders' fast check.
    private let awaited = Atomic<Int>(0)
    /// Which loads are under way, for the waiting render.
    private let state = ConditionLock(State())
    /// ``limit`` in nanoseconds.
    private let limitNanoseconds = Atomic<UInt64>(30_000_000_000)

    private struct State {
        var nextID: UInt64 = 0
        /// Loads under way that a render waits for.
        var pending: Set<UInt64> = []
        /// Loads under way that a render gave up waiting for.
        var abandoned: Set<UInt64> = []
    }

    /// One load under way; ``end(_:)`` it exactly once.
    package struct Token: Sendable {
        fileprivate let id: UInt64
    }

    /// Whether renders wait for loads: on `.offline` and fast `.file` outputs.
    package let rendersWait: Bool

    /// The loads of an engine on `output`.
    ///
    /// - Parameter output: The engine's output; only non-real-time ones wait.
    package init(for output: AudioEngine.Output) {
        switch output {
        case .offline, .file(_, _, .asFastAsPossible): rendersWait = true
        case .device, .file(_, _, .realTime): rendersWait = false
        }
    }

    /// How long a render waits for the loads under way before it goes on
    /// without them (30 s by default; tests shorten it).
    package var limit: Duration {
        get { .nanoseconds(Int64(limitNanoseconds.load(ordering: .relaxed))) }
        set {
            let (seconds, attoseconds) = newValue.components
            let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
            limitNanoseconds.store(UInt64(nanoseconds), ordering: .relaxed)
        }
    }

    /// Whether a render must wait: a load it waits for is under way.
    package var holdsRender: Bool { rendersWait && awaited.load(ordering: .acquiring) > 0 }

    /// Records a load that starts now, on an output whose renders wait.
    ///
    /// - Returns: The token that ends it; nil when renders do not wait.
    package func begin() -> Token? {
        guard rendersWait else { return nil }
        return state.withLockedValue { state in
            state.nextID &+= 1
            state.pending.insert(state.nextID)
            awaited.add(1, ordering: .releasing)
            return Token(id: state.nextID)
        }
    }

    /// Records that the load `token` stands for has finished or failed, its
    /// result applied under the engine lock; wakes a render waiting for it.
    ///
    /// - Parameter token: What ``begin()`` returned for the load.
    package func end(_ token: Token) {
        state.withLockedValue { state in
            if state.pending.remove(token.id) != nil {
                awaited.subtract(1, ordering: .releasing)
            } else {
                state.abandoned.remove(token.id)
            }
        }
    }

    /// Waits until no load is under way, or until ``limit`` has passed; then
    /// gives up on the loads still under way (later waits skip them).
    /// Call it without the engine lock.
    ///
    /// - Returns: Whether every load ended in time.
    @discardableResult
    package func waitUntilIdle() -> Bool {
        guard holdsRender else { return true }
        let deadline = MonotonicClock.now() &+ limitNanoseconds.load(ordering: .relaxed)
        if state.wait(until: deadline, for: { $0.pending.isEmpty }) { return true }
        state.withLockedValue { state in
            awaited.subtract(state.pending.count, ordering: .releasing)
            state.abandoned.formUnion(state.pending)
            state.pending.removeAll()
        }
        return false
    }
}
