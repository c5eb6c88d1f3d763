import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// `backbeat bank check`, run as a child process, on banks a sound designer might write.
@Suite struct BankCommandTests {
    /// A bank file `json` beside a one-second sine at `sfx/tone.wav`.
    private static func bank(_ json: String, in dir: URL) throws -> URL {
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("sfx"), withIntermediateDirectories: true)
        try Songs.write(Songs.sineFrames(0..<4_800), to: dir.appendingPathComponent("sfx/tone.wav"))
        let url = dir.appendingPathComponent("bank.json")
        try Data(json.utf8).write(to: url)
        return url
    }

    @Test("bank check counts in the singular when there is one: 1 event, 1 sound file, 1 sound")
    func singularCounts() throws {
        try withTemporaryDirectory { dir in
            let url = try Self.bank(#"{"events": [{"name": "coin", "sounds": ["sfx/tone.wav"]}]}"#, in: dir)
            let result = try BackbeatTool.run(["bank", "check", url.path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("1 event, 1 sound file, "), "\(result.stdout)")
            #expect(result.stdout.contains("  coin: random, 1 sound, bus effects"), "\(result.stdout)")
            #expect(!result.stdout.contains("1 sounds") && !result.stdout.contains("1 events"))
        }
    }

    @Test(
        "An unknown key in a bank names the nearest known key",
        arguments: [
            (
                #"{"events": [{"name": "a", "sounds": ["sfx/tone.wav"], "pich": [0, 1]}]}"#,
                #"pich: unknown key; did you mean "pitchCents"?"#
            ),
            (
                #"{"events": [{"name": "a", "sounds": ["sfx/tone.wav"], "volme": 1}]}"#,
                #"volme: unknown key; did you mean "volume"?"#
            ),
            (#"{"event": []}"#, #"unknown key "event" at the top (version, buses, events); did you mean "events"?"#),
            (
                #"{"events": [{"name": "a", "sounds": [{"file": "sfx/tone.wav", "wieght": 2}]}]}"#,
                #"sounds[0]: unknown key "wieght" (file, weight, loop); did you mean "weight"?"#
            ),
        ])
    func unknownKeySuggestsTheNearest(json: String, message: String) throws {
        try withTemporaryDirectory { dir in
            let url = try Self.bank(json, in: dir)
            let result = try BackbeatTool.run(["bank", "check", url.path])
            #expect(result.status == 1)
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
    }

    @Test("A key near no known key gets no guess")
    func farKeyGetsNoSuggestion() throws {
        try withTemporaryDirectory { dir in
            let url = try Self.bank(#"{"events": [{"name": "a", "sounds": ["sfx/tone.wav"], "xyzzy": 1}]}"#, in: dir)
            let result = try BackbeatTool.run(["bank", "check", url.path])
            #expect(result.status == 1)
            #expect(result.stderr.contains("xyzzy: unknown key"), "\(result.stderr)")
            #expect(!result.stderr.contains("did you mean"))
        }
    }
}
