#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A monitor's own clock for reading a game's lines: it ticks at the rate
/// the monitor asked for, and at each tick the monitor takes what came
/// (``TelemetryClient/availableRawLines()``).
///
/// A monitor that waits on its socket instead is woken by every line the
/// game sends, and the game pays for that wakeup: its send wakes the
/// monitor's thread, and the scheduler may bring that thread to the game's
/// own core. A monitor that sleeps on this clock is asleep on a timer when
/// the game sends, so the send wakes nobody (Monitoring.md gives what that
/// saves). A line waits in the socket for one tick at most: a monitor that
/// draws at the rate the game sends still has each line by its next frame.
package struct TelemetryReadClock: Sendable {
    /// Seconds between ticks.
    package let period: Double
    /// The monotonic time of the next tick, in seconds.
    private var next: Double

    /// A clock whose first tick is one period from now.
    ///
    /// - Parameter rate: ticks per second, held to 1 through
    ///   ``TelemetryProtocol/maximumRate``.
    package init(rate: Int) {
        period = 1 / Double(min(max(rate, 1), TelemetryProtocol.maximumRate))
        next = Self.now() + period
    }

    /// Seconds until the next tick; 0 once it is due.
    package var secondsLeft: Double { max(0, next - Self.now()) }

    /// Takes the tick if it is due, and moves on to the one after.
    ///
    /// A clock more than a period behind (its process was stopped, or
    /// busy) starts again a period from now, rather than ticking at once for
    /// every tick it missed.
    ///
    /// - Returns: whether the tick was due.
    package mutating func takeTick() -> Bool {
        let now = Self.now()
        guard now >= next else { return false }
        next += period
        if next <= now { next = now + period }
        return true
    }

    /// Sleeps until the next tick or for `longest` seconds, whichever is
    /// sooner (so that a caller can look at a stop flag in between), then
    /// takes the tick if it is due.
    ///
    /// - Parameter longest: the most seconds to sleep.
    /// - Returns: whether the tick was due.
    package mutating func sleepToTick(atMost longest: Double) -> Bool {
        let wait = min(secondsLeft, max(0, longest))
        if wait > 0 {
            let nanoseconds = Int((wait * 1e9).rounded(.up))
            var request = timespec(tv_sec: nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
            // A signal ends the sleep early: the tick is not due yet, and the caller looks at its flags.
            _ = nanosleep(&request, nil)
        }
        return takeTick()
    }

    private static func now() -> Double {
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        return Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9
    }
}
