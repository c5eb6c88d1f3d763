import BackbeatBench
import Foundation
import Testing

@Suite("Monitor benchmark suite")
struct MonitorSuiteTests {
    @Test("Snapshots of a moving scene list 256 voices, count every emitter, and are timed")
    func snapshotTimes() throws {
        let (times, listed, counted) = try MonitorSuite().snapshotTimes(emitters: 1_000, count: 10)
        #expect(times.count == 10)
        #expect(times.allSatisfy { $0.isFinite && $0 > 0 })
        #expect(listed == 256)
        #expect(counted == 1_000)
    }
}

@Suite("Monitor cycles")
struct MonitorCyclesTests {
    @Test("A child's line reads back, and its ratios sum every segment over the monitoring-off ones")
    func lineAndRatios() throws {
        let first = try #require(MonitorCycles(line: "0.03,0.01 0.033,0.011 0.04,0.02 0.02,0.04 12"))
        #expect(first.snapshots == 12)
        // Over the mean of off (0.04) and control (0.06) in all: 0.05.
        #expect(abs(first.ratio(.on) - 0.88) < 1e-9)
        #expect(abs(first.ratio(.client) - 1.2) < 1e-9)
        // The control over off alone.
        #expect(abs(first.ratio(.control) - 1.5) < 1e-9)
        let second = try #require(MonitorCycles(line: "0.06 0.06 0.06 0.06 3"))
        // (0.044 + 0.06) / ((0.04 + 0.06 + 0.06 + 0.06) / 2): the segments pooled, not the children's ratios averaged.
        #expect(abs(MonitorCycles.ratio(.on, over: [first, second]) - 0.104 / 0.11) < 1e-9)
        #expect(MonitorCycles(line: "0.03 0.03 0.03 7") == nil)
        #expect(first.cycleRatios(.client).count == 1)
        #expect(abs(first.cycleRatios(.client)[0] - 1.2) < 1e-9)
        #expect(MonitorCycles(line: "0.03,0.01 0.03 0.03 0.03 7") == nil)
    }
}

@Suite("Monitor cycle ratios")
struct MonitorCycleRatioTests {
    @Test("Each cycle's two segments of a state go over that cycle's off and control segments alone")
    func perCycle() throws {
        let cycles = try #require(
            MonitorCycles(line: "0.03,0.01,0.02,0.02 0.033,0.011,0.02,0.02 0.04,0.02,0.05,0.05 0.02,0.04,0.02,0.02 5"))
        let expected: [(MonitorCycles.State, [Double])] = [
            (.on, [0.88, 1]), (.client, [1.2, 2.5]), (.control, [1.5, 1]), (.off, [1, 1]),
        ]
        for (state, ratios) in expected {
            let measured = cycles.cycleRatios(state)
            #expect(measured.count == ratios.count, "\(state)")
            for (a, b) in zip(measured, ratios) { #expect(abs(a - b) < 1e-9, "\(state)") }
        }
    }
}

@Suite("Monitor cycle orders")
struct MonitorCycleOrderTests {
    @Test(
        "Over two cycles off and control, and on and the client, take the same places; the phases never share a client")
    func placesAndPhases() {
        for phase in [0, 1] {
            let two = [0, 1].map { MonitorCycles.order(ofCycle: $0, phase: phase) }
            let places = { (state: MonitorCycles.State) in
                two.flatMap { order in order.indices.filter { order[$0] == state } }.sorted()
            }
            #expect(places(.off) == places(.control), "phase \(phase)")
            #expect(places(.on) == places(.client), "phase \(phase)")
            for order in two {
                #expect(order.count == 8)
                #expect(order == order.reversed(), "each cycle is mirrored")
                // A cost a client left behind falls on the control: it comes right after a client.
                let afterClient = order.indices.dropLast().filter { order[$0] == .client }.map { order[$0 + 1] }
                #expect(afterClient.contains(.control))
            }
        }
        for cycle in 0..<4 {
            let (a, b) = (MonitorCycles.order(ofCycle: cycle, phase: 0), MonitorCycles.order(ofCycle: cycle, phase: 1))
            #expect(zip(a, b).allSatisfy { !($0 == .client && $1 == .client) }, "cycle \(cycle)")
        }
    }
}
