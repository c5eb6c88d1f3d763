import Backbeat
import BackbeatEngine

/// One kind of load the soak suite applies to a real-time engine: effect
/// triggers, bus fades and ducks, session events — and, when the music
/// player lands, queue changes and streams (add a participant to
/// ``SoakSuite/defaultParticipants``; nothing else changes).
///
/// The soak calls ``start(engine:)`` once, ``tick(engine:random:)`` from its
/// game loop about every 5 ms of wall-clock time, then ``finish(engine:)``,
/// which must stop everything it started and drop every sound it holds, so
/// source and buffer counts can return to where they were.
package protocol SoakParticipant: AnyObject {
    /// A short name for the log.
    var name: String { get }
    /// Prepares sounds and players (not timed).
    func start(engine: AudioEngine) throws
    /// Does this tick's random work; `second` is the wall-clock time since the soak began.
    func tick(engine: AudioEngine, random: inout SeededRandom, second: Double)
    /// Stops everything and releases every sound and player.
    func finish(engine: AudioEngine)
    /// Underruns this participant observed (a stream running dry, ...).
    var underruns: Int { get }
    /// One line of counts for the log.
    var summary: String { get }
}
