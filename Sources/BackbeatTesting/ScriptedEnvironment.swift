import BackbeatEngine
import BackbeatMedia
import BackbeatSession
import BackbeatSupport

/// A list of environment events at engine times, posted to a session as time
/// passes: for tests and demos ("a call comes in at 2 s, ends at 5 s").
///
/// Drive it yourself with ``advance(to:)``, or let an engine drive it with
/// ``attach(to:)``: each event is then posted at the first update step at or
/// after its time. Events at the same time are posted in the order given.
///
/// ```swift
/// let script = ScriptedEnvironment(session: session, events: [
///     .init(at: MediaTime(seconds: 2), .interruptionBegan),
///     .init(at: MediaTime(seconds: 5), .interruptionEnded(shouldResume: true)),
/// ])
/// ```
public final class ScriptedEnvironment: Sendable {
    /// One event and the engine time it happens at.
    public struct Entry: Sendable, Hashable {
        /// Engine time of the event.
        public var time: MediaTime
        /// The event.
        public var event: SessionEvent

        /// An event at an engine time.
        ///
        /// - Parameters:
        ///   - time: The engine time to post it at.
        ///   - event: What happens then.
        public init(at time: MediaTime, _ event: SessionEvent) {
            self.time = time
            self.event = event
        }
    }

    private let session: AudioSession
    /// The entries, sorted by time, stable for equal times.
    public let entries: [Entry]
    private struct Progress {
        var next = 0
        var sampleRate = 0
    }
    private let progress = LockedValueBox(Progress())

    /// A script of `events` for `session`.
    ///
    /// - Parameters:
    ///   - session: The session the events go to.
    ///   - events: The script, in any order; it is sorted by time.
    public init(session: AudioSession, events: [Entry]) {
        self.session = session
        self.entries = events.enumerated()
            .sorted { $0.element.time == $1.element.time ? $0.offset < $1.offset : $0.element.time < $1.element.time }
            .map(\.element)
    }

    /// Whether every event has been posted.
    public var isFinished: Bool { progress.withLockedValue { $0.next >= entries.count } }

    /// Posts, in order, every event due at or before `time` not yet posted, each
    /// stamped with its own time. Moving backwards posts nothing.
    ///
    /// - Parameter time: The engine time reached.
    public func advance(to time: MediaTime) {
        // Claim the due entries under the lock and post them outside it; the
        // session applies posts in the order they are accepted.
        let due = progress.withLockedValue { p -> ArraySlice<Entry> in
            var end = p.next
            while end < entries.count, entries[end].time <= time { end += 1 }
            defer { p.next = end }
            return entries[p.next..<end]
        }
        for entry in due { session.post(entry.event, source: .script, at: entry.time) }
    }

    /// Lets `engine` drive the script on its update steps. The engine keeps only
    /// a weak reference: keep the script alive as long as it should run.
    ///
    /// - Parameter engine: The engine whose time drives the script.
    public func attach(to engine: AudioEngine) {
        progress.withLockedValue { $0.sampleRate = engine.sampleRate }
        engine.addStepObserver(self)
    }
}

extension ScriptedEnvironment: EngineStepObserver {
    /// Posts what is due as the engine's update step at `frame` begins, outside
    /// the engine lock (the session's decisions take it).
    package func engineWillStep(at frame: Int64) {
        let rate = progress.withLockedValue { $0.sampleRate }
        guard rate > 0 else { return }
        advance(to: MediaTime(frames: frame, sampleRate: rate))
    }
}
