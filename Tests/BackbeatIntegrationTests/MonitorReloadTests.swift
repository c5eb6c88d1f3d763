import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// `backbeat monitor PID --reload` against a game that leaves following off:
/// this test process is the game (an offline engine serving its monitor
/// socket in a runtime folder of its own), the tool a child process.
@Suite struct MonitorReloadTests {
    static let rate = 48_000

    static func bank(_ file: String) -> String {
        "{\n  \"events\": [\n    {\"name\": \"hit\", \"sounds\": [\"sfx/\(file)\"]}\n  ]\n}\n"
    }

    /// The left channel's level at `hz` over frames 200..<4,400 of a render.
    static func level(_ samples: [Float], _ hz: Double) -> Float {
        let left = Array(SampleAnalysis.channel(samples, 0, of: 2)[200..<4_400])
        return SampleAnalysis.level(of: left, atFrequency: hz, sampleRate: rate)
    }

    @Test func reloadReloadsWhatChangedAndSaysSoInOneLineEach() async throws {
        try await withTemporaryDirectory { dir in
            let runtime = dir.appendingPathComponent("runtime")
            try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
            let sfx = dir.appendingPathComponent("sfx")
            try FileManager.default.createDirectory(at: sfx, withIntermediateDirectories: true)
            for (name, hz) in [("low.wav", 400.0), ("high.wav", 1_000)] {
                let tone = TestSignal.sine(frequency: hz, duration: MediaTime(seconds: 0.1))
                try Songs.write(tone.interleavedFloats, to: sfx.appendingPathComponent(name), channels: 1)
            }
            let url = dir.appendingPathComponent("sfx.bank.json")
            try Data(Self.bank("low.wav").utf8).write(to: url)
            let engine = try AudioEngine(output: .offline(sampleRate: Self.rate, channels: 2))
            defer { engine.shutdown() }
            try engine.startMonitoring(
                socketPath: runtime.appendingPathComponent("backbeat/\(getpid()).sock"))
            let bank = try SoundBank(contentsOf: url, engine: engine)
            #expect(bank.reloadsWhenChanged, "on by default while monitoring")
            bank.reloadsWhenChanged = false
            try await bank.preload()
            func reload() throws -> (status: Int32, stdout: String, stderr: String) {
                try BackbeatTool.run(
                    ["monitor", "\(getpid())", "--reload"], environment: ["XDG_RUNTIME_DIR": runtime.path])
            }

            let unchanged = try reload()
            #expect(unchanged.status == 0 && unchanged.stdout == "no bank or sound file changed\n", "\(unchanged)")

            try Data(Self.bank("high.wav").utf8).write(to: url)
            _ = try engine.render(frames: 480)
            bank["hit"]?.play()
            #expect(Self.level(try engine.render(frames: 4_800), 400) > 0.1, "not followed: the old bank")

            let reloaded = try reload()
            #expect(reloaded.status == 0, "\(reloaded.stderr)")
            #expect(reloaded.stdout == "\(url.path): bank reloaded, 1 event\n")
            bank["hit"]?.play()
            let next = try engine.render(frames: 4_800)
            #expect(Self.level(next, 1_000) > 0.1 && Self.level(next, 400) < 0.01)

            try Data("{\n  \"events\": [\n    {\"name\": \"hit\", \"sounds\": []}\n  ]\n}\n".utf8).write(to: url)
            let failed = try reload()
            #expect(failed.status == 0)
            #expect(failed.stdout.hasPrefix("\(url.path):3:21: "), "\(failed.stdout)")
            #expect(failed.stdout.split(separator: "\n").count == 1)
            bank["hit"]?.play()
            #expect(Self.level(try engine.render(frames: 4_800), 1_000) > 0.1, "the last good bank stays")
        }
    }
}
