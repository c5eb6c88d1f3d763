import Backbeat
import BackbeatTestFixtures
import Foundation
import Testing

/// The command-line tool, run as a subprocess (``BackbeatTool``). This checks
/// what users see — exit status, the single stderr line, the files left on
/// disk — which in-process calls cannot.
@Suite struct ConvertCommandTests {
    @Test func convertsWithPresetsAndSettings() async throws {
        try await withTemporaryDirectory { dir in
            let source = dir.appendingPathComponent("in.ogg")
            try await Media.write(
                Fixtures.music(seconds: 1, sampleRate: 48_000), to: source, as: .oggVorbis,
                tags: AudioTags(title: "Theme", trackNumber: 2))
            let runs: [([String], AudioFormat, String)] = [
                (
                    ["--preset", "cd"], AudioFormat(sampleRate: 44_100, channelCount: 2, commonFormat: .int16),
                    "out.wav"
                ),
                (
                    ["--preset", "flac"], AudioFormat(sampleRate: 48_000, channelCount: 2, commonFormat: .int16),
                    "out.flac"
                ),
                (
                    ["--rate", "22050", "--channels", "1", "--format", "int16"],
                    AudioFormat(sampleRate: 22_050, channelCount: 1, commonFormat: .int16), "out.aiff"
                ),
                (
                    ["--preset", "vorbis"], AudioFormat(sampleRate: 48_000, channelCount: 2, commonFormat: .float32),
                    "out2.ogg"
                ),
            ]
            for (options, format, name) in runs {
                let out = dir.appendingPathComponent(name)
                let r = try BackbeatTool.run(["convert", source.path, out.path] + options)
                #expect(r.status == 0, "\(r.stderr)")
                #expect(try await AudioAsset(url: out).load(.format) == format)
            }
            let r = try BackbeatTool.run([
                "convert", source.path, dir.appendingPathComponent("copy.ogg").path, "--preset", "passthrough",
            ])
            #expect(r.status == 0)
            #expect(try Data(contentsOf: dir.appendingPathComponent("copy.ogg")) == Data(contentsOf: source))
        }
    }

    @Test func infoPrintsJSON() async throws {
        try await withTemporaryDirectory { dir in
            let source = dir.appendingPathComponent("in.ogg")
            let tags = AudioTags(
                title: "Theme", artist: "Band", albumTitle: "OST", trackNumber: 2,
                artwork: [Artwork(data: Media.png, mimeType: "image/png", width: 64, height: 32)])
            try await Media.write(Fixtures.music(seconds: 0.5), to: source, as: .oggVorbis, tags: tags)
            let r = try BackbeatTool.run(["info", "--json", source.path])
            #expect(r.status == 0)
            let array = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
            let object = try #require(array.first)
            #expect(object["path"] as? String == source.path)
            #expect(object["format"] as? String == "Ogg")
            #expect(object["sampleRate"] as? Int == 44_100)
            #expect(object["channels"] as? Int == 2)
            #expect(object["frames"] as? Int == 22_050)
            #expect(object["durationSeconds"] as? Double == 0.5)
            let t = try #require(object["tags"] as? [String: Any])
            #expect(
                Set(t.keys).isSuperset(of: [
                    "title", "artist", "album", "albumArtist", "genre", "composer", "trackNumber", "discNumber", "date",
                ]))
            #expect(t["title"] as? String == "Theme")
            #expect(t["album"] as? String == "OST")
            #expect(t["trackNumber"] as? Int == 2)
            #expect(t["genre"] is NSNull)
            let art = try #require(object["artwork"] as? [[String: Any]])
            #expect(art.count == 1)
            #expect(art.first?["width"] as? Int == 64)
            #expect(art.first?["height"] as? Int == 32)

            let text = try BackbeatTool.run(["info", source.path])
            #expect(text.stdout.contains("Title:       Theme"))
            #expect(text.stdout.contains("image/png, 64x32"))
        }
    }

    /// Every bad input: non-zero exit, exactly one line on stderr naming the file, and no output left behind.
    @Test func badInputFailsWithOneLineAndNoOutput() async throws {
        try await withTemporaryDirectory { dir in
            let good = dir.appendingPathComponent("good.ogg")
            try await Media.write(Fixtures.music(seconds: 0.3), to: good, as: .oggVorbis)
            let bytes = try Data(contentsOf: good)
            let truncated = dir.appendingPathComponent("truncated.ogg")
            try bytes.prefix(bytes.count / 2).write(to: truncated)
            let noise = dir.appendingPathComponent("noise.ogg")
            try Data((0..<4000).map { UInt8(($0 * 7919) & 0xFF) }).write(to: noise)
            let empty = dir.appendingPathComponent("empty.wav")
            try Data().write(to: empty)
            let lying = try await Media.lyingWAV(dir)
            let aac = dir.appendingPathComponent("aac.wav")
            var wav = [UInt8](try Data(contentsOf: lying))
            let fmt = try #require((0..<wav.count - 4).first { wav[$0..<$0 + 4] == Array("fmt ".utf8)[...] })
            wav[fmt + 8] = 0xFF
            try Data(wav).write(to: aac)
            let existing = dir.appendingPathComponent("existing.wav")
            try Data("old".utf8).write(to: existing)
            let sourceDir = dir.appendingPathComponent("folder.ogg")
            try FileManager.default.createDirectory(at: sourceDir, withIntermediateDirectories: false)
            let wavSource = dir.appendingPathComponent("s.wav")
            try runTool(
                "sox", ["-n", "-r", "8000", "-c", "1", "-b", "16", wavSource.path, "synth", "0.1", "sine", "300"])
            let picture = dir.appendingPathComponent("picture.ogg")
            try runTool(
                "oggenc", ["-Q", "-c", "METADATA_BLOCK_PICTURE=AAAAA/////8=", "-o", picture.path, wavSource.path])
            let before = Media.listing(dir)

            let out = dir.appendingPathComponent("out.wav").path
            let cases: [([String], String)] = [
                (["convert", dir.appendingPathComponent("missing.ogg").path, out], "file not found"),
                (["convert", sourceDir.path, out], "not a file"),
                (["convert", empty.path, out], "empty file"),
                (["convert", truncated.path, out], "truncated file"),
                (["convert", noise.path, out], "corrupt file"),
                (["convert", lying.path, out], "truncated file"),
                (["convert", aac.path, out], "unsupported codec"),
                (
                    ["convert", good.path, dir.appendingPathComponent("nowhere/out.wav").path],
                    "directory does not exist"
                ),
                (["convert", good.path, existing.path], "file exists"),
                (["info", picture.path], "corrupt artwork"),
                (["info", truncated.path], "truncated file"),
            ]
            for (arguments, message) in cases {
                let r = try BackbeatTool.run(arguments)
                #expect(r.status != 0, "\(arguments)")
                let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
                #expect(lines.count == 1, "\(arguments): \(r.stderr)")
                #expect(lines.first?.contains(message) == true, "\(arguments): \(r.stderr)")
                #expect(lines.first?.contains(dir.lastPathComponent) == true, "the line names the file: \(r.stderr)")
                #expect(Media.listing(dir) == before, "\(arguments) left files behind")
            }
            #expect(try Data(contentsOf: existing) == Data("old".utf8))
            // With --overwrite the same conversion succeeds.
            #expect(try BackbeatTool.run(["convert", good.path, existing.path, "--overwrite"]).status == 0)
        }
    }
}
