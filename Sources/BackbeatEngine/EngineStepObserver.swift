/// Something that sees every update step begin, without the engine lock: a
/// scripted environment, which posts to the session, whose decisions take the
/// lock. On `.offline` and fast `.file` outputs it is called on the thread
/// that renders, so a script lands on the same frames every run.
package protocol EngineStepObserver: AnyObject {
    /// The update step at `frame` (engine time in frames) is about to run.
    func engineWillStep(at frame: Int64)
}

/// A weak reference, so observers die with their owners.
struct WeakStepObserver {
    weak var observer: (any EngineStepObserver)?
}
