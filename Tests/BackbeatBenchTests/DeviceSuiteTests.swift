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
        let low = try #require(device["latency_ms_low"])
        let standard = try #require(device["latency_ms_default"])
        #expect(low > 2 && low < 100, "low \(low) ms")
        #expect(standard > 2 && standard < 200, "default \(standard) ms")
        // Trigger to sound: at least the output latency's order, never before the call.
        let p50 = try #require(device["trigger_to_sound_ms_p50"])
        let p99 = try #require(device["trigger_to_sound_ms_p99"])
        #expect(p50 > 2 && p50 < 200 && p99 >= p50 && p99 < 400, "p50 \(p50) ms, p99 \(p99) ms")
    }

    @Test("the trigger child's report is bounded, and a recording without one click per call gives no figure")
    func triggerReportAndOnsets() throws {
        #expect(DeviceScene.Triggers(line: "100 0 1,2 20,20") == nil)  // no rate
        #expect(DeviceScene.Triggers(line: "100 48000 1,2 20") == nil)  // a latency missing
        #expect(DeviceScene.Triggers(line: "garbage") == nil)
        let triggers = try #require(DeviceScene.Triggers(line: "1000 48000 5000,9000 20.0,21.0"))
        // Reference heard at 10, the calls' clicks 4,480 and 8,960 frames later than their calls are from it.
        let delays = try #require(DeviceScene.triggerToSound(triggers, onsets: [10, 4_010 + 480, 8_010 + 960]))
        #expect(abs(delays[0] - 30) < 1e-9 && abs(delays[1] - 41) < 1e-9, "\(delays)")
        #expect(DeviceScene.triggerToSound(triggers, onsets: [10, 4_490]) == nil)
        // Onsets: the first frame over 0.3 in the left channel, 50 ms apart at least.
        var samples = [Float](repeating: 0.05, count: 2 * 48_000)
        for frame in [1_000, 1_100, 30_000] { samples[2 * frame] = 0.6 }
        #expect(DeviceScene.clickOnsets(samples, sampleRate: 48_000) == [1_000, 30_000])
    }
}
