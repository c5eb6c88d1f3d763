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
