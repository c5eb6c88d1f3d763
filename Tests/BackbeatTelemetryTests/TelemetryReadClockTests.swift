import Glibc
import Testing

@testable import BackbeatTelemetry

@Suite struct TelemetryReadClockTests {
    @Test func theRateIsHeldToWhatTheProtocolAllows() {
        #expect(TelemetryReadClock(rate: 10).period == 0.1)
        #expect(TelemetryReadClock(rate: 0).period == 1)
        #expect(TelemetryReadClock(rate: -5).period == 1)
        #expect(TelemetryReadClock(rate: 1_000).period == 1 / Double(TelemetryProtocol.maximumRate))
    }

    @Test func aTickComesOnePeriodOnAndOnlyOnce() {
        var clock = TelemetryReadClock(rate: 10)
        // The first tick is a period away; a sleep of nothing leaves it to come.
        let atOnce = clock.takeTick()
        let afterNoSleep = clock.sleepToTick(atMost: 0)
        #expect(!atOnce && !afterNoSleep)
        #expect(clock.secondsLeft > 0 && clock.secondsLeft <= 0.1)
        // Sleeping to the tick takes it (a signal may end a sleep early: sleep again).
        var took = false
        for _ in 0..<100 where !took { took = clock.sleepToTick(atMost: 1) }
        #expect(took)
        // The next is a period on again.
        let again = clock.takeTick()
        #expect(!again)
        #expect(clock.secondsLeft > 0 && clock.secondsLeft <= 0.1)
    }

    @Test func aClockThatFellBehindTicksOnceAndStartsAgain() {
        var clock = TelemetryReadClock(rate: 10)
        // Three and a half periods pass with nobody looking.
        usleep(350_000)
        let late = clock.takeTick()
        // The missed ticks do not all come at once: the next is a period from now.
        let missed = clock.takeTick()
        #expect(late && !missed)
        #expect(clock.secondsLeft > 0.05)
    }
}
