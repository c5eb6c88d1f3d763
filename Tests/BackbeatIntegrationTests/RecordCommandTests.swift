import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// `backbeat record OUT --duration SECONDS [--device NAME]`, run as a child
/// process on a private sound server while a device scene plays a 1 kHz tone
/// at 0.5 into the sink the recording listens to.
@Suite struct RecordCommandTests {
    @Test(
        "soundServer: backbeat record captures the engine's tone from a sink's monitor into WAV and FLAC files; bad arguments and an unknown device are one-line typed errors that leave no file"
    )
    func soundServerRecordCommand() throws {
        let server = try PrivateSoundServer(sinks: ["Backbeat-Main"])
        defer { server.stop() }
        try withTemporaryDirectory { dir in
            let scene = try DeviceScene("tone", server: server, directory: dir)
            defer {
                scene.send("stop")
                _ = scene.finish()
            }
            _ = try #require(scene.line("playing"), "\(scene.all)")
            let environment = server.environment.merging(["ALSOFT_DRIVERS": "pulse", "ALSOFT_CONF": ""]) { $1 }

            // By name, to WAV: one second of 16-bit stereo at 48 kHz, the tone on both channels.
            let wav = dir.appendingPathComponent("take.wav")
            let byName = try BackbeatTool.run(
                ["record", wav.path, "--duration", "1", "--device", "Backbeat-Main.monitor"],
                environment: environment)
            #expect(byName.status == 0, "\(byName.stderr)")
            let take = try Media.read(wav)
            #expect(take.format == AudioFormat(sampleRate: 48_000, channelCount: 2, commonFormat: .int16))
            #expect(take.int16s.count == 2 * 48_000)
            let floats = take.int16s.map { Float($0) / 32_768 }
            for channel in 0..<2 {
                let samples = SampleAnalysis.channel(floats, channel, of: 2)
                AudioCaptureTests.expectTone(Array(samples[2_400..<45_600]), sampleRate: 48_000)
            }

            // The default capture device (the server's default source is the sink's monitor), to FLAC.
            let flac = dir.appendingPathComponent("take.flac")
            let byDefault = try BackbeatTool.run(
                ["record", flac.path, "--duration", "0.5"], environment: environment)
            #expect(byDefault.status == 0, "\(byDefault.stderr)")
            let second = try Media.read(flac, settings: AudioFormat(sampleRate: 48_000, channelCount: 2))
            #expect(second.floats.count == 2 * 24_000)
            AudioCaptureTests.expectTone(
                Array(SampleAnalysis.channel(second.floats, 0, of: 2)[2_400..<21_600]), sampleRate: 48_000)

            // Bad input: one line on standard error, status 1, no file.
            let bad = dir.appendingPathComponent("bad")
            try FileManager.default.createDirectory(at: bad, withIntermediateDirectories: false)
            let cases: [([String], String)] = [
                (["--duration", "0"], "--duration"),
                (["--duration", "-2"], "--duration"),
                (["--duration", "abc"], "--duration"),
                (["--duration", "nan"], "--duration"),
                (["--duration", "1e9"], "--duration"),
                (["--duration", "1", "--device", "no-such-source"], "capture device unavailable"),
                (["--duration", "1", "--device", ""], "--device"),
            ]
            for (options, expected) in cases {
                let r = try BackbeatTool.run(
                    ["record", bad.appendingPathComponent("x.wav").path] + options, environment: environment)
                #expect(r.status == 1, "\(options)")
                #expect(r.stderr.hasPrefix("backbeat: ") && r.stderr.contains(expected), "\(options): \(r.stderr)")
                #expect(r.stderr.split(separator: "\n").count == 1, "\(options): \(r.stderr)")
            }
            let unknownType = try BackbeatTool.run(
                ["record", bad.appendingPathComponent("x.mp4").path, "--duration", "1"], environment: environment)
            #expect(unknownType.status == 1 && unknownType.stderr.contains("mp4"), "\(unknownType.stderr)")
            let missing = try BackbeatTool.run(
                ["record", dir.appendingPathComponent("no/such/dir/x.wav").path, "--duration", "0.2"],
                environment: environment)
            #expect(missing.status == 1 && missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
            #expect(Media.listing(bad).isEmpty, "\(Media.listing(bad))")
        }
    }

    @Test(
        "soundServer: with no sound server and no capture card, backbeat record is a one-line capture error and leaves no file",
        .enabled(if: !FileManager.default.fileExists(atPath: "/dev/snd"), "a sound card is present")
    )
    func soundServerRecordWithoutDevice() throws {
        try withTemporaryDirectory { dir in
            let out = dir.appendingPathComponent("take.wav")
            let r = try BackbeatTool.run(
                ["record", out.path, "--duration", "1"],
                environment: [
                    "PULSE_SERVER": "unix:" + dir.appendingPathComponent("nothing-listens-here").path,
                    "ALSOFT_DRIVERS": "", "ALSOFT_CONF": "",
                ])
            #expect(r.status == 1)
            #expect(
                r.stderr.hasPrefix("backbeat: alcCaptureOpenDevice: capture device unavailable"), "\(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            #expect(Media.listing(dir).isEmpty)
        }
    }
}
