import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import DrumpadCore

/// `bank FILE`, `event NAME` and `pad N EVENT`: a sound bank played from the
/// drum pad, followed while it runs with `--monitor`.
@Suite struct DrumpadBankTests {
    static func bank(_ events: [(String, String)]) -> String {
        let entries = events.map { #"    {"name": "\#($0.0)", "sounds": ["sfx/\#($0.1)"]}"# }
        return "{\n  \"events\": [\n" + entries.joined(separator: ",\n") + "\n  ]\n}\n"
    }

    /// Writes a 400 Hz and a 1,000 Hz tone under `sfx/` and a bank of `events`.
    static func setUp(_ events: [(String, String)], in dir: URL) throws -> URL {
        let sfx = dir.appendingPathComponent("sfx")
        try FileManager.default.createDirectory(at: sfx, withIntermediateDirectories: true)
        for (name, hz) in [("low.wav", 400.0), ("high.wav", 1_000)] {
            let tone = TestSignal.sine(frequency: hz, duration: MediaTime(seconds: 0.1))
            try Songs.write(tone.interleavedFloats, to: sfx.appendingPathComponent(name), channels: 1)
        }
        let url = dir.appendingPathComponent("hits.bank.json")
        try Data(bank(events).utf8).write(to: url)
        return url
    }

    @Test func bankEventAndPadPlayTheBanksEvents() throws {
        try withTemporaryDirectory { dir in
            let url = try Self.setUp([("hit", "low.wav"), ("zap", "high.wav")], in: dir)
            let render = try DrumpadDemoTests.render(music: false) { demo in
                for line in ["bank \(url.path)", "event hit", "wait 0.2", "pad 1 zap", "snare", "wait 0.2", "bass"] {
                    #expect(demo.perform(line: line))
                }
            }
            #expect(render.lines.contains("bank: \(url.path): 2 events: hit, zap"), "\(render.lines)")
            #expect(render.lines.contains("pad 1: plays event zap"))
            #expect(render.started.prefix(2) == ["low.wav", "high.wav"], "pad 1 (the snare) posts the event")
            #expect(
                render.started.count == 3 && render.started[2].hasPrefix("bass"), "an unmapped pad: \(render.started)")
            let left = SampleAnalysis.channel(render.samples, 0, of: 2)
            func level(_ hz: Double, at seconds: Double) -> Float {
                let start = Int(seconds * Double(render.sampleRate)) + render.latencyFrames + 200
                return SampleAnalysis.level(
                    of: Array(left[start..<(start + 3_600)]), atFrequency: hz, sampleRate: 48_000)
            }
            #expect(level(400, at: 0) > 0.1 && level(1_000, at: 0) < 0.01)
            #expect(level(1_000, at: 0.2) > 0.1 && level(400, at: 0.2) < 0.01)
        }
    }

    @Test func badBankInputIsOneLineAndTheDemoGoesOn() throws {
        try withTemporaryDirectory { dir in
            let url = try Self.setUp([("hit", "low.wav")], in: dir)
            let input =
                [
                    "event hit", "bank missing.json", "bank \(url.lastPathComponent)", "event nope", "pad 5 hit",
                    "pad 2 nope", "event hit", "wait 0.2", "quit",
                ].joined(separator: "\n") + "\n"
            let wav = dir.appendingPathComponent("out.wav")
            let result = try DrumpadDemoTests.run(input: Data(input.utf8), arguments: ["--output", wav.path], in: dir)
            #expect(result.status == 0)
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.contains("event: no bank loaded; load one with: bank FILE"), "\(result.stdout)")
            #expect(
                lines.contains {
                    $0.hasPrefix("bank: ") && $0.contains("missing.json") && $0.contains("does not exist")
                })
            #expect(lines.contains("bank: hits.bank.json: 1 event: hit"))
            #expect(lines.contains { $0.hasPrefix("event: no event \"nope\" in hits.bank.json") })
            #expect(lines.contains { $0.hasPrefix("pad: expected a pad 1-4") })
            #expect(lines.contains { $0.hasPrefix("pad 2: no event \"nope\"") })
            let read = try Media.read(wav)
            #expect(SampleAnalysis.peak(read.floats) > 0.1, "the last event hit still sounds")
        }
    }

    @Test func withMonitoringTheBankFollowsItsFile() throws {
        try withTemporaryDirectory { dir in
            let url = try Self.setUp([("hit", "low.wav"), ("gone", "low.wav")], in: dir)
            let render = try DrumpadDemoTests.render(music: false) { demo in
                try demo.engine.startMonitoring(socketPath: dir.appendingPathComponent("monitor.sock"))
                for line in ["bank \(url.path)", "pad 3 hit", "event hit", "wait 0.2"] { demo.perform(line: line) }
                let temporary = dir.appendingPathComponent(".hits.bank.json.swp")
                try Data(Self.bank([("hit", "high.wav")]).utf8).write(to: temporary)
                #expect(rename(temporary.path, url.path) == 0)
                for line in ["wait 0.1", "3", "wait 0.2", "event gone"] { demo.perform(line: line) }
                try Data("{ broken".utf8).write(to: url)
                demo.perform(line: "wait 0.1")
                demo.engine.stopMonitoring()
            }
            #expect(
                render.lines.contains("bank: \(url.path): 2 events, following the file: hit, gone"), "\(render.lines)")
            #expect(render.lines.contains("bank: reloaded \(url.path): hit; removed gone"), "\(render.lines)")
            #expect(render.lines.contains { $0.hasPrefix("event: no event \"gone\"") && $0.contains("removed") })
            #expect(render.lines.contains { $0.hasPrefix("bank: \(url.path):1:3: bad JSON") }, "\(render.lines)")
            #expect(render.started == ["low.wav", "high.wav"], "pad 3 plays the edited event: \(render.started)")
        }
    }
}
