import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// `backbeat info` on a real PulseAudio server (a private one), run as a
/// child process: OpenAL picks its backends once per process, so a device
/// scene never runs in the test process itself.
@Suite struct InfoCommandTests {
    @Test(
        "soundServer: backbeat info lists the server's devices, marks the default, and reports the latency measured there"
    )
    func soundServerInfoListsDevicesAndMeasuredLatency() throws {
        let server = try PrivateSoundServer(sinks: ["Backbeat-A", "Backbeat-B"])
        defer { server.stop() }
        try server.setDefaultSink("Backbeat-B")
        // This process's engines may have pointed ALSOFT_CONF at their config: the child writes its own.
        let environment = server.environment.merging(["ALSOFT_DRIVERS": "pulse", "ALSOFT_CONF": ""]) { $1 }
        let result = try BackbeatTool.run(["info"], environment: environment)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        // Both sinks, by description, the default marked and named.
        #expect(lines.contains("  * Backbeat-B"))
        #expect(lines.contains("    Backbeat-A"))
        #expect(lines.contains("Default device: Backbeat-B"))
        #expect(lines.contains { $0.hasPrefix("  device   available at 48000 Hz (Backbeat-B)") })
        // The period OpenAL got (the default request, 384 × 3) and the latency a playing source saw.
        let measured = try #require(lines.first { $0.hasPrefix("Latency measured: ") }, "\(result.stdout)")
        #expect(measured.hasPrefix("Latency measured: 384 × 3 frames at 48000 Hz: "))
        let figures = measured.split(separator: ":").last.map(String.init) ?? ""
        let mean = try #require(Double(figures.split(separator: " ").first ?? ""))
        #expect(mean > 1 && mean <= 30)
        // HRTF: the data sets OpenAL Soft finds, which load at 48 kHz, and the default device's state.
        #expect(lines.contains("  yes default-48000") && lines.contains("  no  default-44100"))
        #expect(lines.contains { $0.hasPrefix("HRTF on the default device: disabled") })
    }

    @Test("soundServer: with no server, backbeat info says the device is unavailable and still exits 0")
    func infoWithoutServer() throws {
        let environment = ["ALSOFT_DRIVERS": "pulse", "PULSE_SERVER": "unix:/nonexistent/native"]
        let result = try BackbeatTool.run(["info"], environment: environment)
        #expect(result.status == 0)
        #expect(result.stdout.contains("  device   unavailable: "))
        #expect(!result.stdout.contains("Latency measured"))
        // What is missing is a device, not memory: OpenAL Soft's ALC_OUT_OF_MEMORY is not passed on.
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("  device   ") })
        #expect(line == "  device   unavailable: default device: no output device (no sound server or sound card)")
        #expect(!result.stdout.contains("Out of Memory"))
    }
}
