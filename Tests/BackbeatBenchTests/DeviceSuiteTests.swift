import Backbeat
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
        // The same at .low, and the scene played at .low with a core busy: its underruns, heard and not.
        let p50Low = try #require(device["trigger_to_sound_ms_p50_low"])
        let p99Low = try #require(device["trigger_to_sound_ms_p99_low"])
        #expect(p50Low > 1 && p50Low < 200 && p99Low >= p50Low && p99Low < 400, "p50 \(p50Low) ms, p99 \(p99Low) ms")
        // The controls ran in the same rounds: pacat with the same buffer, and raw OpenAL.
        for key in ["underruns_low", "dropouts_low", "dropouts_control_low", "dropouts_raw_low"] {
            let count = try #require(device[key], "no \(key)")
            #expect(count >= 0 && count == count.rounded(), "\(key) \(count)")
        }
        let cpuLow = try #require(device["cpu_s_backbeat_low"])
        #expect(cpuLow > 0 && device["cpu_s_backbeat_low_min"] != nil, "cpu at .low \(cpuLow)")
    }

    @Test(
        "the device scene's latency word is a preset or a period size and count, and the .low figures can try another")
    func latencyWords() throws {
        #expect(DeviceScene.latency(named: "low") == .low)
        #expect(DeviceScene.latency(named: "default") == .default)
        #expect(DeviceScene.latency(named: "safe") == .safe)
        #expect(DeviceScene.latency(named: "160x3") == AudioEngine.OutputLatency(periodSize: 160, periods: 3))
        for bad in ["", "fast", "128", "128x", "x3", "32x3", "128x1", "128x17", "128x3x2", "-128x3"] {
            #expect(DeviceScene.latency(named: bad) == nil, "\(bad)")
        }
        #expect(try DeviceSuite.lowSetting([:]).latency == .low)
        #expect(try DeviceSuite.lowSetting(["BACKBEAT_BENCH_DEVICE_LOW": "192x3"]).word == "192x3")
        #expect(throws: BenchError.self) { try DeviceSuite.lowSetting(["BACKBEAT_BENCH_DEVICE_LOW": "soon"]) }
    }

    @Test("the control asks pacat for OpenAL Soft's buffer: tlength of size × count frames, minreq of one period")
    func controlAsksForTheSameBuffer() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("control-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let control = try ControlTone(
            directory: directory, seconds: 1, latency: AudioEngine.OutputLatency(periodSize: 128, periods: 3),
            environment: [:])
        // Float stereo frames: 8 bytes each.
        #expect(control.arguments.contains("--latency=3072"), "\(control.arguments)")
        #expect(control.arguments.contains("--process-time=1024"), "\(control.arguments)")
        #expect(control.arguments.contains("--format=float32le") && control.arguments.contains("--rate=48000"))
        // The tone is a second of sound with no silence in it: a gap in the recording is the server's.
        let tone = try Data(contentsOf: directory.appendingPathComponent("control-tone.raw"))
        let samples = tone.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(samples.count == 2 * 48_000)
        #expect(DeviceScene.dropouts(samples).isEmpty)
        #expect(samples.map(abs).max() ?? 0 > 0.19)
    }

    @Test("a dropout is a silence of 1 ms or more between a recording's first and last sound")
    func dropoutsAreSilencesInsideTheSound() {
        // 1 s of a stereo tone, silent for its first and last 0.1 s (not dropouts).
        var samples = [Float](repeating: 0, count: 2 * 48_000)
        for frame in 4_800..<43_200 {
            let value = Float(0.3 * sin(2 * Double.pi * 440 * Double(frame) / 48_000)) + 0.01
            samples[2 * frame] = value
            samples[2 * frame + 1] = -value
        }
        #expect(DeviceScene.dropouts(samples).isEmpty)
        // Silences of 128 and 48 frames are dropouts; 47 frames, or one channel silent, are not.
        func silence(_ frames: Range<Int>, channels: [Int] = [0, 1]) {
            for frame in frames { for channel in channels { samples[2 * frame + channel] = 0 } }
        }
        silence(10_000..<10_128)
        silence(20_000..<20_048)
        silence(30_000..<30_047)
        silence(35_000..<36_000, channels: [0])
        #expect(DeviceScene.dropouts(samples) == [128, 48])
        #expect(DeviceScene.dropouts([Float](repeating: 0, count: 960)).isEmpty)
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
