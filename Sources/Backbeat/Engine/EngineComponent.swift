/// A part of the engine that acts on engine time: voices, buses, streams,
/// players. The engine calls ``update(at:)`` once per update period, under the
/// engine lock, with the OpenAL context current.
protocol EngineComponent: AnyObject {
    /// Does the work due at `frame` (engine time in frames).
    func update(at frame: Int64) throws
}

/// A weak reference, so components die with their owners.
struct WeakComponent {
    weak var component: (any EngineComponent)?
}
