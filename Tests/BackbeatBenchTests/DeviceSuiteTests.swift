import Foundation
import Testing
@testable import BackbeatBench

/// The `device` suite, end to end: `backbeat bench device` starts its own
/// private sound server, plays the scene through Backbeat and through raw
/// OpenAL in child processes, and reports every figure.
@Suite struct DeviceSuiteTests {
    @Test("soundServer: backbeat bench device --quick reports CPU against raw OpenAL, underruns and both latencies")
    func soundServerDeviceSuiteReportsEveryFigure() throws {
        let executable = try ChildPeakMemoryTests.backbeatExecutable()
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("backbeat-device-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["bench", "device", "--quick", "--rounds", "1", "--json"]
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: out)) as? [String: Any], "not JSON")
        let device = try #require(json["device"] as? [String: Double], "no device suite in \(json.keys)")
        let ratio = try #require(device["cpu_ratio_vs_raw"])
        #expect(ratio.isFinite && ratio > 0.2 && ratio < 20, "ratio \(ratio)")
        #expect(device["cpu_ratio_vs_raw_min"] != nil && device["cpu_ratio_vs_raw_max"] != nil)
        let underruns = try #require(device["underruns"])
        #expect(underruns >= 0 && underruns == underruns.rounded())
        // Both settings really ran: OpenAL Soft reports 1 ms until a stream plays.
        let low = try #require(device["latency_ms_low"]), standard = try #require(device["latency_ms_default"])
        #expect(low > 2 && low < 100, "low \(low) ms")
        #expect(standard > 2 && standard < 200, "default \(standard) ms")
    }
}
