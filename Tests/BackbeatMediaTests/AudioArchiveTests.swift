import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatMedia

@Suite("AudioArchive")
struct AudioArchiveTests {
    /// Loose files (an Ogg Vorbis song, a FLAC and a WAV sound) and two zip archives of them made by the
    /// `zip` tool: `stored.zip` (zip -0) and `deflated.zip` (zip -9).
    static func pack(in dir: URL) async throws -> (loose: [String: URL], stored: URL, deflated: URL) {
        let root = dir.appendingPathComponent("pack")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("music"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("sfx"), withIntermediateDirectories: true)
        let theme = root.appendingPathComponent("music/theme.ogg")
        try await Media.write(Fixtures.music(seconds: 4), to: theme, as: .oggVorbis)
        let hit = root.appendingPathComponent("sfx/hit.flac")
        try await Media.write(Media.int16Signal(frames: 22_050), to: hit, as: .flac)
        let blip = root.appendingPathComponent("sfx/blip.wav")
        try await Media.write(Media.int16Signal(frames: 11_025, channels: 1), to: blip, as: .wav)
        let stored = dir.appendingPathComponent("stored.zip")
        let deflated = dir.appendingPathComponent("deflated.zip")
        for (level, zip) in [("-0", stored), ("-9", deflated)] {
            let r = try runTool("sh", ["-c", "cd '\(root.path)' && zip -q -r \(level) '\(zip.path)' music sfx"])
            #expect(r.status == 0, "zip: \(r.stderr)")
        }
        return (["music/theme.ogg": theme, "sfx/hit.flac": hit, "sfx/blip.wav": blip], stored, deflated)
    }

    @Test("Stored entries read in place and deflated ones streamed decode to the loose files' samples")
    func entriesMatchLooseFiles() async throws {
        try await withTemporaryDirectory { dir in
            let (loose, stored, deflated) = try await Self.pack(in: dir)
            for zip in [stored, deflated] {
                let archive = try AudioArchive(url: zip)
                #expect(Set(archive.paths) == Set(loose.keys))
                for (path, url) in loose {
                    let source = try archive.source(path: path)
                    if zip == stored {
                        #expect(source is StoredEntrySource, "\(path)")
                    } else {
                        #expect(source is DeflatedEntrySource, "\(path)")
                    }
                    let expected = try AudioByteSourceTests.int16s(AudioAsset(url: url))
                    #expect(expected.count > 20_000)
                    #expect(
                        try AudioByteSourceTests.int16s(archive.asset(path: path)) == expected,
                        "\(zip.lastPathComponent):\(path)")
                    let asset = try #require(try AudioArchive.asset(reference: zip.path + ":" + path))
                    #expect(try await asset.load(.frameCount) == AudioAsset(url: url).load(.frameCount))
                    #expect(asset.url.absoluteString.hasSuffix(".zip:" + path))
                }
            }
        }
    }

    @Test("A player streams a song from a stored and from a deflated entry, the loose file's samples")
    func playerStreamsFromArchive() async throws {
        try await withTemporaryDirectory { dir in
            let (loose, stored, deflated) = try await Self.pack(in: dir)
            func render(_ asset: AudioAsset) throws -> [Float] {
                try withOfflineEngine(sampleRate: 44_100) { engine in
                    let player = try QueuePlayer(engine: engine, items: [PlayerItem(asset: asset)])
                    player.play()
                    return try engine.render(frames: 44_100 * 2)
                }
            }
            let reference = try render(AudioAsset(url: try #require(loose["music/theme.ogg"])))
            #expect(SampleAnalysis.peak(reference) > 0.1)
            for zip in [stored, deflated] {
                let asset = try AudioArchive(url: zip).asset(path: "music/theme.ogg")
                #expect(try render(asset) == reference, "\(zip.lastPathComponent)")
            }
        }
    }

    /// Rewrites `count` bytes at `offset` of `url`.
    static func patch(_ url: URL, at offset: Int, _ bytes: [UInt8]) throws {
        var data = try Data(contentsOf: url)
        data.replaceSubrange(offset..<offset + bytes.count, with: bytes)
        try data.write(to: url)
    }

    /// The offset of the central directory record (`PK\1\2`) or local header (`PK\3\4`) of `name`.
    static func record(_ signature: UInt8, named name: String, in url: URL) throws -> Int {
        let data = [UInt8](try Data(contentsOf: url))
        let nameBytes = Array(name.utf8)
        let nameOffset = signature == 1 ? 46 : 30
        for i in 0..<(data.count - nameOffset - nameBytes.count) {
            if data[i] == 0x50, data[i + 1] == 0x4B, data[i + 2] == signature, data[i + 3] == signature + 1,
                Array(data[(i + nameOffset)..<(i + nameOffset + nameBytes.count)]) == nameBytes
            {
                return i
            }
        }
        throw BackbeatError(.invalidArgument, operation: "test", reason: "no record for \(name)")
    }

    static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    static func readLE32(_ url: URL, at offset: Int) throws -> Int {
        let d = [UInt8](try Data(contentsOf: url))
        return Int(d[offset]) | Int(d[offset + 1]) << 8 | Int(d[offset + 2]) << 16 | Int(d[offset + 3]) << 24
    }

    @Test("Bad archives, a missing entry, an entry that lies about its size and an encrypted entry are typed errors")
    func badArchives() async throws {
        try await withTemporaryDirectory { dir in
            let (loose, stored, deflated) = try await Self.pack(in: dir)
            func expectError(_ code: BackbeatError.Code, _ words: String, _ body: () throws -> Void) {
                let error = #expect(throws: BackbeatError.self) { try body() }
                #expect(error?.code == code, "\(String(describing: error))")
                #expect(error?.description.contains(words) == true, "\(String(describing: error))")
                #expect(error?.description.contains("\n") == false)
            }

            // Not a zip at all.
            let song = try #require(loose["music/theme.ogg"])
            let fake = dir.appendingPathComponent("fake.zip")
            try FileManager.default.copyItem(at: song, to: fake)
            expectError(.notAnArchive, "fake.zip") { _ = try AudioArchive(url: fake) }

            // Truncated: the end of the archive (its directory) is gone.
            let truncated = dir.appendingPathComponent("truncated.zip")
            try Data(try Data(contentsOf: stored).prefix(try Data(contentsOf: stored).count * 2 / 3)).write(
                to: truncated)
            expectError(.notAnArchive, "truncated.zip") { _ = try AudioArchive(url: truncated) }

            // A missing entry names the path.
            let archive = try AudioArchive(url: stored)
            expectError(.entryNotFound, "music/missing.ogg") { _ = try archive.asset(path: "music/missing.ogg") }
            expectError(.entryNotFound, "music/missing.ogg") {
                _ = try AudioArchive.asset(reference: stored.path + ":music/missing.ogg")
            }

            // The central directory's size of a stored entry flipped: the local header disagrees.
            for zip in [stored, deflated] {
                let lying = dir.appendingPathComponent("lying-cd-\(zip.lastPathComponent)")
                try FileManager.default.copyItem(at: zip, to: lying)
                let central = try Self.record(1, named: "music/theme.ogg", in: lying)
                let size = try Self.readLE32(lying, at: central + 24)
                try Self.patch(lying, at: central + 24, Self.le32(size + 1000))
                if zip == stored { try Self.patch(lying, at: central + 20, Self.le32(size + 1000)) }
                expectError(.entrySizeMismatch, "\(size + 1000)") {
                    _ = try AudioByteSourceTests.int16s(AudioArchive(url: lying).asset(path: "music/theme.ogg"))
                }
            }

            // A deflated entry whose headers agree on a size its data does not have: found while streaming
            // (opening an Ogg file reads its last page, so both directions show at once).
            for delta in [-100, 100] {
                let lying = dir.appendingPathComponent("lying-both-\(delta).zip")
                try FileManager.default.copyItem(at: deflated, to: lying)
                let central = try Self.record(1, named: "music/theme.ogg", in: lying)
                let local = try Self.record(3, named: "music/theme.ogg", in: lying)
                let size = try Self.readLE32(lying, at: central + 24)
                try Self.patch(lying, at: central + 24, Self.le32(size + delta))
                try Self.patch(lying, at: local + 22, Self.le32(size + delta))
                expectError(.entrySizeMismatch, "declares") {
                    _ = try AudioByteSourceTests.int16s(AudioArchive(url: lying).asset(path: "music/theme.ogg"))
                }
            }

            // An encrypted entry.
            let encrypted = dir.appendingPathComponent("encrypted.zip")
            let r = try runTool(
                "sh",
                [
                    "-c",
                    "cd '\(song.deletingLastPathComponent().path)' && zip -q -P secret '\(encrypted.path)' theme.ogg",
                ])
            #expect(r.status == 0, "zip: \(r.stderr)")
            expectError(.encryptedEntry, "theme.ogg") { _ = try AudioArchive(url: encrypted).asset(path: "theme.ogg") }
        }
    }

    @Test("backbeat info and convert take archive.zip:path/inside")
    func commandLine() async throws {
        try await withTemporaryDirectory { dir in
            let (loose, _, deflated) = try await Self.pack(in: dir)
            let info = try BackbeatTool.run(["info", "--json", deflated.path + ":sfx/hit.flac"])
            #expect(info.status == 0, "\(info.stderr)")
            #expect(info.stdout.contains("\"frames\" : 22050"), "\(info.stdout)")
            let out = dir.appendingPathComponent("hit.wav")
            let convert = try BackbeatTool.run(["convert", deflated.path + ":sfx/hit.flac", out.path])
            #expect(convert.status == 0, "\(convert.stderr)")
            #expect(
                try AudioByteSourceTests.int16s(AudioAsset(url: out))
                    == AudioByteSourceTests.int16s(AudioAsset(url: try #require(loose["sfx/hit.flac"]))))
            let missing = try BackbeatTool.run(["info", deflated.path + ":sfx/none.flac"])
            #expect(missing.status != 0)
            #expect(missing.stderr.contains("sfx/none.flac"), "\(missing.stderr)")
        }
    }
}
