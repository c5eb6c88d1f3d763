import Backbeat
import BackbeatBench
import Testing

/// The trigger benchmark measures what it says: both sides are timed, the
/// first sample comes out on the same frame for Backbeat and raw OpenAL, and
/// scheduled starts land exactly. No timing is asserted.
@Suite("Trigger benchmark")
struct TriggerSuiteTests {
    @Test("Per-call costs are recorded for every trigger on both sides, positive and finite")
    func costs() throws {
        let costs = try TriggerSuite().measureCosts(triggers: 300, block: 50)
        #expect(costs.backbeat.count == 300)
        #expect(costs.raw.count == 300)
        #expect(costs.event.count == 300)
        #expect((costs.backbeat + costs.raw + costs.event).allSatisfy { $0.isFinite && $0 >= 0 })
        #expect(percentile(costs.event, 0.5) > 0)
        #expect(percentile(costs.backbeat, 0.5) > 0)
        #expect(percentile(costs.backbeat, 0.99) >= percentile(costs.backbeat, 0.5))
    }

    @Test("play() is heard after exactly the output latency, as raw alSourcePlay is")
    func latency() throws {
        let latency = try TriggerSuite().measureLatency()
        #expect(latency.backbeat == latency.raw)
        #expect(latency.backbeat == latency.outputLatency)
    }

    @Test("play(at:) lands on its frame")
    func schedule() throws {
        #expect(try TriggerSuite().measureScheduleError(trials: 12) == 0)
    }

    @Test("A quick run reports every stable figure")
    func quickRunFigures() throws {
        let figures = try TriggerSuite().run(BenchOptions(quick: true), log: { _ in })
        let byKey = Dictionary(figures.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        for key in [
            "p50_us", "p99_us", "raw_p50_us", "raw_p99_us", "event_us_p50", "event_us_p99", "event_ratio_vs_play",
        ] {
            let value = try #require(byKey[key], "figure \(key)")
            #expect(value.isFinite && value > 0, "\(key) = \(value)")
        }
        #expect(byKey["latency_frames"] == 48)
        #expect(byKey["schedule_error_frames"] == 0)
    }
}
