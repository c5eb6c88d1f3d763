import Backbeat
import BackbeatCapture
import BackbeatSupport
import BackbeatTestFixtures
import Foundation
import Testing

/// `backbeat replay FILE --output out.wav | --summary [--from S] [--to S] [--solo BUS]`,
/// run as a child process on captures made here by an offline engine.
@Suite struct ReplayCommandTests {
    /// A capture of an offline session and what that session rendered.
    struct Session {
        var capture: URL
        var sound: URL
        var samples: [Float]
    }

    /// Frames the captured session renders, and where its three hits start.
    static let frames = 48_000
    static let hits = [4_800, 19_200, 33_600]

    /// A click track: a short 1 kHz burst, as a float WAV, `amplitude` loud.
    static func writeSound(_ url: URL, amplitude: Float) throws {
        var samples = Songs.sineFrames(0..<2_400, frequency: 1_000, amplitude: amplitude)
        for frame in 2_000..<2_400 {
            let fade = Float(2_400 - frame) / 400
            samples[2 * frame] *= fade
            samples[2 * frame + 1] *= fade
        }
        try Songs.write(samples, to: url)
    }

    /// Records an offline session playing `snare.wav` three times in a second, and keeps its render.
    static func captureSession(in dir: URL) throws -> Session {
        let sound = dir.appendingPathComponent("snare.wav")
        try writeSound(sound, amplitude: 0.5)
        let capture = dir.appendingPathComponent("session.bbcap")
        let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
        defer { engine.shutdown() }
        let recording = try engine.startCapture(to: capture)
        let snare = SoundEffect(contentsOf: sound, engine: engine)
        var samples: [Float] = []
        var rendered = 0
        for hit in hits {
            samples += try engine.render(frames: hit - rendered)
            rendered = hit
            snare.play(volume: 0.8)
        }
        samples += try engine.render(frames: frames - rendered)
        try recording.stop()
        return Session(capture: capture, sound: sound, samples: samples)
    }

    /// Runs `backbeat replay` and reads the WAV it wrote (nil when there is none).
    static func replay(_ arguments: [String], output: URL?) throws -> (
        status: Int32, stdout: String, stderr: String, samples: [Float]?
    ) {
        let result = try BackbeatTool.run(["replay"] + arguments + (output.map { ["--output", $0.path] } ?? []))
        guard let output, FileManager.default.fileExists(atPath: output.path) else {
            return (result.status, result.stdout, result.stderr, nil)
        }
        return (result.status, result.stdout, result.stderr, try Media.read(output).floats)
    }

    /// The files in `dir`, by name (a replay that failed must leave no temporary file).
    static func files(in dir: URL) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
    }

    /// The capture rewritten with its records spread over `pieces` CRC-checked
    /// blocks (the reader joins blocks, so any split is a valid capture), so
    /// that damage to the last block leaves the others whole.
    static func reblock(_ capture: URL, pieces: Int) throws -> (bytes: [UInt8], blockStarts: [Int]) {
        let bytes = [UInt8](try Data(contentsOf: capture))
        var payload: [UInt8] = []
        var offset = CaptureFormat.headerBytes
        while offset < bytes.count {
            let length =
                Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16
                | Int(bytes[offset + 3]) << 24
            payload += bytes[(offset + 8)..<(offset + 8 + length)]
            offset += 8 + length
        }
        var out = Array(bytes[0..<CaptureFormat.headerBytes])
        var starts: [Int] = []
        let size = (payload.count + pieces - 1) / pieces
        for start in stride(from: 0, to: payload.count, by: size) {
            let chunk = Array(payload[start..<min(payload.count, start + size)])
            starts.append(out.count)
            withUnsafeBytes(of: UInt32(chunk.count).littleEndian) { out.append(contentsOf: $0) }
            withUnsafeBytes(of: CRC32.checksum(chunk).littleEndian) { out.append(contentsOf: $0) }
            out += chunk
        }
        return (out, starts)
    }

    /// The first sample where `a` and `b` differ (or where one ends), nil when they are equal: a
    /// failure names the place, not two arrays of a million samples.
    static func firstDifference(_ a: [Float]?, _ b: [Float]) -> Int? {
        guard let a else { return -1 }
        if let index = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset { return index }
        return a.count == b.count ? nil : min(a.count, b.count)
    }

    @Test("A capture of an offline session replays to the bits it rendered; --from and --to render a part")
    func replayIsBitIdentical() throws {
        try withTemporaryDirectory { dir in
            let session = try Self.captureSession(in: dir)
            let out = dir.appendingPathComponent("replay.wav")
            let whole = try Self.replay([session.capture.path], output: out)
            #expect(whole.status == 0, "\(whole.stderr)")
            #expect(whole.stderr.isEmpty, "\(whole.stderr)")
            let samples = try #require(whole.samples)
            #expect(
                Self.firstDifference(samples, session.samples) == nil, "the replay differs from the session's render")
            #expect(session.samples.contains { abs($0) > 0.1 }, "the session is not silent")

            let part = try Self.replay([session.capture.path, "--from", "0.25", "--to", "0.5"], output: out)
            #expect(part.status == 0, "\(part.stderr)")
            #expect(part.stderr.isEmpty, "a replay cut at --to warns of nothing: \(part.stderr)")
            #expect(Self.firstDifference(part.samples, Array(session.samples[(12_000 * 2)..<(24_000 * 2)])) == nil)
        }
    }

    @Test("--summary prints one line per second with something in it; --solo renders one bus")
    func summaryAndSolo() throws {
        try withTemporaryDirectory { dir in
            let session = try Self.captureSession(in: dir)
            let summary = try Self.replay([session.capture.path, "--summary"], output: nil)
            #expect(summary.status == 0, "\(summary.stderr)")
            let lines = summary.stdout.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("    0 s  "), "\(summary.stdout)")

            let out = dir.appendingPathComponent("solo.wav")
            let effects = try Self.replay([session.capture.path, "--solo", "effects"], output: out)
            #expect(effects.status == 0, "\(effects.stderr)")
            #expect(Self.firstDifference(effects.samples, session.samples) == nil, "the pads are on the effects bus")
            let music = try Self.replay([session.capture.path, "--solo", "music"], output: out)
            #expect(music.status == 0, "\(music.stderr)")
            #expect(music.samples?.count == session.samples.count)
            #expect(music.samples?.allSatisfy { $0 == 0 } == true, "nothing played on the music bus")
        }
    }

    @Test("A missing sound is one line naming it and its path, exit 1, and no WAV, not even a temporary one")
    func missingSound() throws {
        try withTemporaryDirectory { dir in
            let session = try Self.captureSession(in: dir)
            try FileManager.default.removeItem(at: session.sound)
            let before = try Self.files(in: dir)
            let out = dir.appendingPathComponent("replay.wav")
            let result = try Self.replay([session.capture.path], output: out)
            #expect(result.status == 1)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(result.stderr.contains(session.sound.path), "\(result.stderr)")
            #expect(result.stderr.contains("file not found"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
            #expect(try Self.files(in: dir) == before, "a failed replay leaves no file")
        }
    }

    @Test("A sound whose content changed is one warning, and the replay goes on with the new content")
    func changedSound() throws {
        try withTemporaryDirectory { dir in
            let session = try Self.captureSession(in: dir)
            try Self.writeSound(session.sound, amplitude: 0.25)
            let out = dir.appendingPathComponent("replay.wav")
            let result = try Self.replay([session.capture.path], output: out)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("changed since the capture"), "\(result.stderr)")
            #expect(lines.first?.contains(session.sound.path) == true)
            let samples = try #require(result.samples)
            #expect(samples.count == session.samples.count)
            let peak = samples.map(abs).max() ?? 0
            let original = session.samples.map(abs).max() ?? 0
            #expect(abs(peak - original / 2) < 0.01, "the new, half as loud sound: \(peak) against \(original)")
        }
    }

    @Test("A capture cut short or with a bad block replays up to the damage, says where, and exits 0")
    func damagedCapture() throws {
        try withTemporaryDirectory { dir in
            let session = try Self.captureSession(in: dir)
            let (bytes, starts) = try Self.reblock(session.capture, pieces: 4)
            #expect(starts.count == 4)
            let out = dir.appendingPathComponent("replay.wav")

            let reblocked = dir.appendingPathComponent("reblocked.bbcap")
            try Data(bytes).write(to: reblocked)
            let whole = try Self.replay([reblocked.path], output: out)
            #expect(whole.status == 0, "\(whole.stderr)")
            #expect(Self.firstDifference(whole.samples, session.samples) == nil)

            let cut = dir.appendingPathComponent("cut.bbcap")
            try Data(bytes[0..<(starts[3] + 10)]).write(to: cut)
            var flipped = bytes
            flipped[starts[3] + 9] ^= 0x20
            let bad = dir.appendingPathComponent("bad.bbcap")
            try Data(flipped).write(to: bad)
            for damaged in [cut, bad] {
                let result = try Self.replay([damaged.path], output: out)
                #expect(result.status == 0, "\(result.stderr)")
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 1, "\(result.stderr)")
                #expect(lines.first?.contains("stops early at") == true, "\(result.stderr)")
                #expect(lines.first?.contains("byte \(starts[3])") == true, "\(result.stderr)")
                let samples = try #require(result.samples)
                #expect(samples.count < session.samples.count, "stops at the last whole record")
                #expect(
                    Self.firstDifference(samples, Array(session.samples[0..<samples.count])) == nil,
                    "what it replays is the session's")
            }
        }
    }

    @Test("A file that is not a capture, or from a newer format, is one line, exit 1, and no WAV")
    func notACapture() throws {
        try withTemporaryDirectory { dir in
            let wav = dir.appendingPathComponent("song.wav")
            try Songs.write(Songs.sineFrames(0..<480), to: wav)
            let newer = dir.appendingPathComponent("newer.bbcap")
            try Data(Array("BBCAPTUR".utf8) + [2, 0, 0, 0, 1, 0, 0, 0]).write(to: newer)
            let empty = dir.appendingPathComponent("empty.bbcap")
            try Data(Array("BBCAPTUR".utf8) + [1, 0, 0, 0]).write(to: empty)
            let cases: [(URL, String)] = [
                (wav, "not a capture"), (newer, "version 2"), (empty, "not a capture"),
                (dir.appendingPathComponent("missing.bbcap"), "file not found"), (dir, "not a capture"),
            ]
            let out = dir.appendingPathComponent("replay.wav")
            for (input, reason) in cases {
                let result = try Self.replay([input.path], output: out)
                #expect(result.status == 1, "\(input.lastPathComponent): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
                #expect(result.stderr.hasPrefix("backbeat: ") && result.stderr.contains(reason), "\(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: out.path), "\(input.lastPathComponent) left a WAV")
            }
        }
    }

    @Test("--solo with a bus the capture lacks names each bus once, though a game's bus shares a name")
    func soloNamesEachBusOnce() throws {
        try withTemporaryDirectory { dir in
            let capture = dir.appendingPathComponent("buses.bbcap")
            let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
            let recording = try engine.startCapture(to: capture)
            // As the drum pad does: its own "effects" bus under the master.
            engine.makeBus(named: "effects").volume = 0.5
            engine.makeBus(named: "drums").volume = 0.8
            _ = try engine.render(frames: 4_800)
            try recording.stop()
            engine.shutdown()
            let result = try Self.replay(
                [capture.path, "--solo", "voices"], output: dir.appendingPathComponent("o.wav"))
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("(master, music, effects, drums)"), "\(result.stderr)")
        }
    }

    @Test("Unknown flags exit 64; bad values and a bus the capture lacks are one line, exit 1, no WAV")
    func badArguments() throws {
        try withTemporaryDirectory { dir in
            let session = try Self.captureSession(in: dir)
            let out = dir.appendingPathComponent("replay.wav")
            let unknown = try BackbeatTool.run(["replay", session.capture.path, "--speed", "2"])
            #expect(unknown.status == 64, "\(unknown.stderr)")
            let cases: [([String], String)] = [
                ([], "--output"),
                (["--from", "abc"], "--from"), (["--from", "-1"], "--from"), (["--to", "nan"], "--to"),
                (["--from", "0.5", "--to", "0.25"], "--to must be after --from"),
                (["--from", "5"], "past the capture's end"),
                (["--solo", "voices"], "no bus named \"voices\""),
            ]
            for (arguments, reason) in cases {
                let result = try Self.replay(
                    [session.capture.path] + arguments, output: arguments.isEmpty ? nil : out)
                #expect(result.status == 1, "\(arguments): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
                #expect(result.stderr.contains(reason), "\(arguments): \(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: out.path), "\(arguments) left a WAV")
            }
        }
    }
}
