import Backbeat
import BackbeatTesting
import Foundation
import Testing

/// The private PulseAudio server of BackbeatTesting, on a real `pulseaudio`:
/// its sinks, its default, its monitor recordings, a kill and a restart.
/// OpenAL is not used here (this process's OpenAL may already have picked
/// its backends); the server is played to with `pacat`.
@Suite struct PrivateSoundServerTests {
    /// Plays interleaved stereo float samples to `sink` with pacat and waits until it has drained.
    private func pacat(_ samples: [Float], to sink: String, on server: PrivateSoundServer) throws {
        let file = URL(fileURLWithPath: server.directory).appendingPathComponent("tone-\(UUID().uuidString).raw")
        try samples.withUnsafeBytes { try Data($0).write(to: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pacat")
        process.arguments = [
            "--playback", "--raw", "--format=float32le", "--rate=48000", "--channels=2",
            "--device=\(sink)", file.path,
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(server.environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test(
        "soundServer: starts with its sinks awake, the first the default, follows set-default-sink, and stop removes it"
    )
    func soundServerSinksAndDefault() throws {
        let server = try PrivateSoundServer(sinks: ["sinkA", "sinkB"])
        #expect(server.isRunning)
        let sinks = try server.pactl("list", "short", "sinks")
        #expect(sinks.contains("sinkA") && sinks.contains("sinkB"))
        #expect(try server.defaultSink() == "sinkA")
        try server.setDefaultSink("sinkB")
        #expect(try server.defaultSink() == "sinkB")
        let descriptions = try server.pactl("list", "sinks")
        #expect(descriptions.contains("Description: sinkA") && descriptions.contains("Description: sinkB"))
        server.stop()
        #expect(!server.isRunning)
        #expect(!FileManager.default.fileExists(atPath: server.directory))
        server.stop()
    }

    @Test("soundServer: a sink's monitor records the tone played to it, at its level, and the other sink stays silent")
    func soundServerMonitorRecording() throws {
        let server = try PrivateSoundServer(sinks: ["sinkA", "sinkB"])
        defer { server.stop() }
        let onB = try server.recordMonitor(of: "sinkB")
        let onA = try server.recordMonitor(of: "sinkA")
        var tone = [Float]()
        for i in 0..<19_200 {
            let value = 0.5 * Float(sin(2 * Double.pi * 1_000 * Double(i) / 48_000))
            tone += [value, value]
        }
        try pacat(tone, to: "sinkB", on: server)
        let recordedB = try onB.stop()
        let recordedA = try onA.stop()
        let first = try #require(SampleAnalysis.firstAudibleFrame(recordedB, channels: 2, threshold: 0.01))
        let last = try #require(SampleAnalysis.lastAudibleFrame(recordedB, channels: 2, threshold: 0.01))
        // The whole tone arrived (0.4 s; the sink is 16-bit, so it is not sample-exact at the edges).
        #expect(last - first >= 19_000 && last - first <= 19_400)
        let left = SampleAnalysis.channel(recordedB, 0, of: 2)
        let middle = Array(left[(first + 2_400)..<(last - 2_400)])
        #expect(abs(SampleAnalysis.level(of: middle, atFrequency: 1_000, sampleRate: 48_000) - 0.5) < 0.01)
        #expect(SampleAnalysis.level(of: middle, atFrequency: 3_000, sampleRate: 48_000) < 0.01)
        #expect(SampleAnalysis.peak(recordedA) < 0.001)
        #expect(!recordedA.isEmpty)
    }

    @Test("soundServer: a killed server restarts at the same address and plays again")
    func soundServerKillAndRestart() throws {
        let server = try PrivateSoundServer(sinks: ["sinkA"])
        defer { server.stop() }
        let address = server.serverAddress
        server.kill(signal: SIGKILL)
        #expect(!server.isRunning)
        #expect(throws: BackbeatError.self) { try server.pactl("info", timeout: 5) }
        try server.restart()
        #expect(server.isRunning)
        #expect(server.serverAddress == address)
        let recording = try server.recordMonitor(of: "sinkA")
        try pacat([Float](repeating: 0.25, count: 9_600), to: "sinkA", on: server)
        #expect(SampleAnalysis.peak(try recording.stop()) > 0.2)
    }

    @Test(
        "soundServer: a frozen server (SIGSTOP) does not answer, a bounded call gives up with an error, and SIGCONT revives it"
    )
    func soundServerFrozen() throws {
        let server = try PrivateSoundServer(sinks: ["sinkA"])
        defer { server.stop() }
        server.kill(signal: SIGSTOP)
        #expect(server.isRunning)
        #expect(throws: BackbeatError.self) { try server.pactl("info", timeout: 1) }
        server.kill(signal: SIGCONT)
        #expect(try server.defaultSink() == "sinkA")
    }

    @Test("soundServer: bad sink names are a BackbeatError, not a daemon that fails later")
    func soundServerBadNames() {
        for sinks in [[], ["a b"], ["x", "x"], ["semi;colon"], [String(repeating: "n", count: 65)]] {
            #expect(throws: BackbeatError.self) { try PrivateSoundServer(sinks: sinks) }
        }
        #expect(throws: BackbeatError.self) {
            let server = try PrivateSoundServer(sinks: ["only"])
            defer { server.stop() }
            _ = try server.recordMonitor(of: "other")
        }
    }
}
