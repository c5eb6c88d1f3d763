import BackbeatCapture
import BackbeatTestFixtures
import Foundation
import Testing

/// A game records a capture without code: `BACKBEAT_CAPTURE=FILE` in its
/// environment, or the drum pad's `--capture FILE`; `backbeat replay` renders
/// it to the bits the game wrote to its WAV.
@Suite struct CaptureRecordingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func drumpad() throws -> String {
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("drumpad"))
        }
        candidates.append(root.appendingPathComponent(".build/debug/drumpad"))
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
        return try #require(found, "build drumpad first (swift build --build-tests)").path
    }

    /// Pads (one placed in 3D) over a song, two seconds of it, and quit's fade-out of both:
    /// short, but what the drum pad does most.
    static let script = """
        session playback mix
        play
        wait 0.5
        bass
        wait 0.25
        snare 110
        wait 0.25
        tambourine 90
        place 2 1 0 -2
        maraca 80
        wait 0.5
        quit
        """

    /// Runs the drum pad on `script` to `wav`, with `arguments` and `environment`.
    static func runDrumpad(
        in dir: URL, wav: URL, arguments: [String] = [], environment: [String: String]? = nil
    ) throws {
        let scriptURL = dir.appendingPathComponent("short.script")
        try Data(script.utf8).write(to: scriptURL)
        let result = try runTool(
            try drumpad(),
            ["--assets", root.appendingPathComponent("Assets").path, "--script", scriptURL.path, "--output", wav.path]
                + arguments,
            environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// Replays `capture` and checks the replay against the game's own `wav`, sample for sample.
    static func expectReplay(of capture: URL, matches wav: URL, in dir: URL) throws {
        let records = try CaptureFileReader(url: capture).readAll()
        #expect(records.first?.kind == .open && records.last?.kind == .end, "a whole capture")
        let out = dir.appendingPathComponent("replay-\(capture.lastPathComponent).wav")
        let result = try BackbeatTool.run(["replay", capture.path, "--output", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        let game = try Media.read(wav).floats
        let replay = try Media.read(out).floats
        #expect(game.contains { abs($0) > 0.05 }, "the game's render is not silent")
        #expect(replay.count == game.count)
        let first = zip(replay, game).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(first == nil, "the replay first differs at sample \(first ?? -1) of \(game.count)")
    }

    @Test("drumpad --capture FILE records a session that replays to the bits of its WAV")
    func drumpadCapture() throws {
        try withTemporaryDirectory { dir in
            let wav = dir.appendingPathComponent("drumpad.wav")
            let capture = dir.appendingPathComponent("drumpad.bbcap")
            try Self.runDrumpad(in: dir, wav: wav, arguments: ["--capture", capture.path])
            try Self.expectReplay(of: capture, matches: wav, in: dir)
        }
    }

    @Test("BACKBEAT_CAPTURE=FILE records a game's session with no code in the game")
    func environmentCapture() throws {
        try withTemporaryDirectory { dir in
            let wav = dir.appendingPathComponent("game.wav")
            let capture = dir.appendingPathComponent("game.bbcap")
            try Self.runDrumpad(in: dir, wav: wav, environment: ["BACKBEAT_CAPTURE": capture.path])
            try Self.expectReplay(of: capture, matches: wav, in: dir)
        }
    }
}
