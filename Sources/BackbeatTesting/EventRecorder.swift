import BackbeatEngine
import BackbeatSupport

/// Records every ``PlaybackEvent`` an engine reports, for assertions: what
/// started, finished, was stolen or refused, in the order the engine said so.
///
/// On `.offline` output, events are delivered before `render` returns, so
/// ``events`` is complete as soon as it does.
public final class EventRecorder: Sendable {
    private let recorded = LockedValueBox<[PlaybackEvent]>([])

    /// Starts recording `engine`'s events.
    ///
    /// - Parameter engine: The engine whose ``PlaybackEvent``s to keep, from now on.
    public init(_ engine: AudioEngine) {
        engine.observe { [weak self] event in self?.recorded.withLockedValue { $0.append(event) } }
    }

    /// The events so far, oldest first.
    public var events: [PlaybackEvent] { recorded.withLockedValue { $0 } }
}
