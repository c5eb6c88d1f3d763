import Backbeat
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatMedia

/// `backbeat play FILE [--output OUT.wav] [--duration SECONDS] [--loops N]`, rendered to files.
@Suite("PlayCommand")
struct PlayCommandTests {
    /// Every frame of a file, interleaved, as the decoder gives it.
    static func decode(_ url: URL) throws -> (samples: [Float], channels: Int, rate: Int) {
        let decoder = try AudioDecoders.open(url)
        defer { decoder.close() }
        var samples: [Float] = []
        _ = try decoder.read(frames: Int(decoder.frameCount), into: &samples)
        return (samples, decoder.channelCount, decoder.sampleRate)
    }

    /// Runs `play` and returns its status, standard error and the rendered file (nil if none).
    static func play(_ arguments: [String], output: URL) throws -> (status: Int32, stderr: String, out: [Float]?) {
        let r = try BackbeatTool.run(["play"] + arguments + ["--output", output.path])
        let exists = FileManager.default.fileExists(atPath: output.path)
        return (r.status, r.stderr, exists ? try decode(output).samples : nil)
    }

    /// The worst difference between `out` frames `at..<at+count` and `file` frames `from..<from+count`.
    static func worst(_ out: [Float], at: Int, _ file: [Float], from: Int, count: Int) -> Float {
        var worst: Float = 0
        for k in 0..<count * 2 { worst = max(worst, abs(out[at * 2 + k] - file[from * 2 + k])) }
        return worst
    }

    @Test("Without loop points: the whole file, sample for sample; --duration cuts it; --loops is ignored")
    func plainFile() throws {
        try withTemporaryDirectory { dir in
            let song = dir.appendingPathComponent("song.wav")
            let out = dir.appendingPathComponent("out.wav")
            let file = Songs.sineFrames(0..<48_000)
            try Songs.write(file, to: song)
            let whole = try Self.play([song.path], output: out)
            #expect(whole.status == 0, "\(whole.stderr)")
            let samples = try #require(whole.out)
            #expect(samples.count == 48_000 * 2)
            #expect(Self.worst(samples, at: 0, file, from: 0, count: 48_000) < 1e-4)
            let cut = try Self.play([song.path, "--duration", "0.25"], output: out)
            #expect(cut.out?.count == 12_000 * 2)
            let ignored = try Self.play([song.path, "--loops", "3"], output: out)
            #expect(ignored.status == 0 && ignored.out?.count == 48_000 * 2, "no loop points: --loops is ignored")
            let longer = try Self.play([song.path, "--duration", "5"], output: out)
            #expect(longer.out?.count == 48_000 * 2, "stops at the file's end")
        }
    }

    @Test("play --output says where the sound went: the file, its length and rate")
    func outputSaysWhereTheSoundWent() throws {
        try withTemporaryDirectory { dir in
            let song = dir.appendingPathComponent("song.wav")
            let out = dir.appendingPathComponent("rendered.wav")
            try Songs.write(Songs.sineFrames(0..<24_000), to: song)
            let result = try BackbeatTool.run(["play", song.path, "--output", out.path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == "Sound went to \(out.path) (0.50 s at 48000 Hz).\n")
            #expect(FileManager.default.fileExists(atPath: out.path))
        }
    }

    @Test("With loop points: intro, the loop N times, the tail; with --duration the loop runs to the duration")
    func loopedFile() async throws {
        try await withTemporaryDirectoryAsync { dir in
            let song = dir.appendingPathComponent("level.ogg")
            let out = dir.appendingPathComponent("out.wav")
            var tags = AudioTags()
            tags.loopPoints = try LoopPoints(start: 12_000, end: 36_000)
            try await Media.write(Fixtures.music(seconds: 1, sampleRate: 48_000), to: song, as: .oggVorbis, tags: tags)
            let file = try Self.decode(song).samples
            #expect(file.count == 48_000 * 2)

            let once = try Self.play([song.path], output: out)
            #expect(once.status == 0, "\(once.stderr)")
            #expect(once.out?.count == 48_000 * 2, "default: the loop once, so the file straight through")
            #expect(Self.worst(try #require(once.out), at: 0, file, from: 0, count: 48_000) < 1e-4)

            let three = try #require(try Self.play([song.path, "--loops", "3"], output: out).out)
            #expect(three.count == (48_000 + 2 * 24_000) * 2, "intro + 3 × loop + tail")
            #expect(Self.worst(three, at: 0, file, from: 0, count: 36_000) < 1e-4, "intro and first loop")
            #expect(Self.worst(three, at: 36_000, file, from: 12_000, count: 24_000) < 1e-4, "second loop, at the seam")
            #expect(Self.worst(three, at: 60_000, file, from: 12_000, count: 24_000) < 1e-4, "third loop")
            #expect(Self.worst(three, at: 84_000, file, from: 36_000, count: 12_000) < 1e-4, "the tail")

            let timed = try #require(try Self.play([song.path, "--duration", "2.5", "--loops", "7"], output: out).out)
            #expect(timed.count == 120_000 * 2, "exactly the duration")
            for start in stride(from: 36_000, to: 120_000 - 24_000, by: 24_000) {
                #expect(Self.worst(timed, at: start, file, from: 12_000, count: 24_000) < 1e-4, "loop at \(start)")
            }
            #expect(
                Self.worst(timed, at: 108_000, file, from: 12_000, count: 12_000) < 1e-4, "still looping at the end")
        }
    }

    @Test("Bad input: one typed line on standard error, exit 1, no output file")
    func badInput() throws {
        try withTemporaryDirectory { dir in
            let song = dir.appendingPathComponent("song.wav")
            let out = dir.appendingPathComponent("out.wav")
            try Songs.write(Songs.sineFrames(0..<4_800), to: song)
            let corrupt = try Songs.corrupt(in: dir)
            let cases: [([String], String)] = [
                ([dir.appendingPathComponent("missing.ogg").path], "file not found"),
                ([corrupt.path], corrupt.lastPathComponent),
                ([song.path, "--duration", "abc"], "--duration"),
                ([song.path, "--duration", "-1"], "--duration"),
                ([song.path, "--duration", "0"], "--duration"),
                ([song.path, "--duration", "nan"], "--duration"),
                ([song.path, "--duration", "inf"], "--duration"),
                ([song.path, "--duration", "1e300"], "--duration"),
                ([song.path, "--loops", "0"], "--loops"),
                ([song.path, "--loops", "-3"], "--loops"),
                ([song.path, "--loops", "99999999999999999999"], "--loops"),
                ([song.path, "--loops", "two"], "--loops"),
            ]
            for (arguments, needle) in cases {
                let r = try Self.play(arguments, output: out)
                #expect(r.status == 1, "\(arguments)")
                let lines = r.stderr.split(separator: "\n")
                #expect(
                    lines.count == 1 && r.stderr.hasPrefix("backbeat: ") && r.stderr.contains(needle), "\(r.stderr)")
                #expect(r.out == nil, "no file for \(arguments)")
            }
            let nowhere = dir.appendingPathComponent("no/such/dir/out.wav")
            let r = try BackbeatTool.run(["play", song.path, "--output", nowhere.path])
            #expect(r.status == 1 && r.stderr.split(separator: "\n").count == 1)
            #expect(!FileManager.default.fileExists(atPath: nowhere.path))
            #expect(Media.listing(dir).sorted() == ["corrupt.wav", "song.wav"], "no temporary file left behind")
        }
    }

    @Test("soundServer: play sends the file to the device and returns when the duration or the file ends")
    func soundServerPlaysThroughTheDevice() throws {
        let server = try PrivateSoundServer(sinks: ["backbeat"])
        defer { server.stop() }
        try withTemporaryDirectory { dir in
            let song = dir.appendingPathComponent("song.wav")
            try Songs.write(Songs.sineFrames(0..<48_000, frequency: 480), to: song)
            let environment = server.environment.merging(["ALSOFT_DRIVERS": "pulse"]) { $1 }
            let recording = try server.recordMonitor(of: "backbeat")
            let timed = try BackbeatTool.run(["play", song.path, "--duration", "0.5"], environment: environment)
            let whole = try BackbeatTool.run(["play", song.path], environment: environment)
            let heard = try recording.stop()
            #expect(timed.status == 0, "\(timed.stderr)")
            #expect(whole.status == 0, "\(whole.stderr)")
            // The sine (amplitude 0.5) reached the sink: 1.5 s of it, two thirds of each period above 0.25.
            let loud = stride(from: 0, to: heard.count, by: 2).filter { abs(heard[$0]) > 0.25 }.count
            #expect(loud > 40_000, "\(loud) loud frames of \(heard.count / 2)")
            #expect(heard.allSatisfy { abs($0) < 0.55 }, "nothing louder than the file")
        }
    }
}
