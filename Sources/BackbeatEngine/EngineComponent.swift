/// A part of the engine that acts on engine time or owns OpenAL objects: the
/// voice pool, music streams, a scripted environment. The engine knows its
/// components only through these hooks, so the layers above it (effects,
/// music, testing) plug in without the engine naming them.
///
/// Every hook runs under the engine lock, with the OpenAL context current.
package protocol EngineComponent: AnyObject {
    /// Does the work due at `frame` (engine time in frames), once per update period.
    func update(at frame: Int64) throws
    /// The earliest engine frame at which ``update(at:)`` next has work,
    /// asked after the step at `frame`; nil when nothing is due until the
    /// game changes something. A device's update loop sleeps until the
    /// earliest such frame of all components (never less than one update
    /// period), and any public call wakes it to ask again. The default,
    /// `frame`, asks for every update period.
    func nextDueFrame(after frame: Int64) -> Int64?
    /// The earliest engine frame at which ``update(at:)`` would change
    /// anything (what OpenAL mixes, what the game can read, an event), asked
    /// after a step at `frame`; nil when nothing until the game changes
    /// something. An offline render skips the update periods before it, so
    /// unlike ``nextDueFrame(after:)`` it must never be late: every step it
    /// lets pass must have been a no-op. The default, `frame`, steps every period.
    func nextStepFrame(after frame: Int64) -> Int64?
    /// The output device is about to be replaced: remember positions, since
    /// the old device's objects are about to vanish. `readPositions` says
    /// whether the old device can still be asked where its sources were.
    func deviceWillBeReplaced(readPositions: Bool)
    /// The replacement device is ``AudioEngine/device``: recreate sources and
    /// buffers on it and carry on.
    func deviceWasReplaced() throws
    /// The engine is shutting down: stop at once, without ramps. The device
    /// closes right after, taking every OpenAL object with it.
    func engineWillShutDown()
}

extension EngineComponent {
    package func update(at frame: Int64) throws {}
    package func nextDueFrame(after frame: Int64) -> Int64? { frame }
    package func nextStepFrame(after frame: Int64) -> Int64? { frame }
    package func deviceWillBeReplaced(readPositions: Bool) {}
    package func deviceWasReplaced() throws {}
    package func engineWillShutDown() {}
}

/// A weak reference, so components die with their owners.
struct WeakComponent {
    weak var component: (any EngineComponent)?
}
