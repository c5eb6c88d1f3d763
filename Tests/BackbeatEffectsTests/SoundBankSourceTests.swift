import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@Suite("SoundBank sources")
struct SoundBankSourceTests {
    /// A bank as a game packs it: `sfx/bank.json` naming its sounds relative to
    /// itself (one through `..`), three mono tones (0.1 s, 400/700/1000 Hz) beside it.
    static let bankJSON = """
        {
          "events": [
            {"name": "step", "sounds": ["tone0.wav", "../sfx/tone1.wav", "./tone2.wav"], "seed": 5,
             "pitchCents": [-100, 100], "volumeDecibels": [-6, 0]},
            {"name": "chord", "mode": "layered", "sounds": ["tone0.wav", "tone2.wav"]}
          ]
        }
        """

    /// Writes `root/sfx/bank.json` (from `json`) and the tones; returns the tones' bytes by file name.
    @discardableResult
    static func looseBank(_ json: String = bankJSON, in root: URL) throws -> [String: Data] {
        let sfx = root.appendingPathComponent("sfx")
        try FileManager.default.createDirectory(at: sfx, withIntermediateDirectories: true)
        var tones: [String: Data] = [:]
        for (i, hz) in [400.0, 700, 1_000].enumerated() {
            let url = sfx.appendingPathComponent("tone\(i).wav")
            let tone = TestSignal.sine(frequency: hz, duration: MediaTime(seconds: 0.1))
            try Songs.write(tone.interleavedFloats, to: url, channels: 1)
            tones["tone\(i).wav"] = try Data(contentsOf: url)
        }
        try Data(json.utf8).write(to: sfx.appendingPathComponent("bank.json"))
        return tones
    }

    /// Zips `root`'s `sfx` folder into `name`, stored (`-0`) or deflated (`-9`), and checks the entries' method.
    static func zip(_ root: URL, to name: String, level: String) throws -> URL {
        let zip = root.deletingLastPathComponent().appendingPathComponent(name)
        let r = try runTool("sh", ["-c", "cd '\(root.path)' && zip -q -r \(level) '\(zip.path)' sfx"])
        #expect(r.status == 0, "zip: \(r.stderr)")
        let listing = try runTool("unzip", ["-v", zip.path]).stdout
        let method = level == "-0" ? "Stored" : "Defl:X"
        let tones = listing.split(separator: "\n").filter { $0.hasSuffix(".wav") }
        #expect(tones.count == 3 && tones.allSatisfy { $0.contains(method) }, "\(listing)")
        return zip
    }

    /// Plays `step` six times and `chord` once on an offline engine and returns what it rendered.
    static func render(sounds: Int = 3, _ load: (AudioEngine) throws -> SoundBank) async throws -> [Float] {
        let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
        defer { engine.shutdown() }
        let bank = try load(engine)
        try await bank.preload()
        #expect(bank.sounds.count == sounds && bank.sounds.allSatisfy(\.isLoaded))
        var out: [Float] = []
        for _ in 0..<6 {
            bank["step"]?.play()
            out += try engine.render(frames: 2_400)
        }
        bank["chord"]?.play()
        out += try engine.render(frames: 4_800)
        return out
    }

    @Test("A bank in a zip (stored and deflated) plays the same samples as the same bank loose")
    func bankInArchive() async throws {
        try await withTemporaryDirectory { dir in
            let root = dir.appendingPathComponent("pack")
            try Self.looseBank(in: root)
            let loose = try await Self.render {
                try SoundBank(contentsOf: root.appendingPathComponent("sfx/bank.json"), engine: $0)
            }
            #expect(SampleAnalysis.peak(loose) > 0.1)
            let chord = SampleAnalysis.channel(Array(loose.suffix(9_600)), 0, of: 2)
            #expect(SampleAnalysis.level(of: Array(chord[300..<4_000]), atFrequency: 1_000, sampleRate: 48_000) > 0.1)
            for (name, level) in [("stored.zip", "-0"), ("deflated.zip", "-9")] {
                let archive = try AudioArchive(url: try Self.zip(root, to: name, level: level))
                var bankURL: URL?
                let packed = try await Self.render { engine in
                    let bank = try SoundBank(archive: archive, path: "sfx/bank.json", engine: engine)
                    bankURL = bank.url
                    return bank
                }
                #expect(packed == loose, "\(name)")
                #expect(bankURL?.absoluteString == "zip://\(archive.url.path):sfx/bank.json")
                let summary = try SoundBank.check(archive: archive, path: "sfx/bank.json")
                #expect(summary.soundFileCount == 3 && summary.events.map(\.name) == ["step", "chord"])
            }
        }
    }

    @Test("A bank from Data plays its sounds through the game's resolver, or a folder, or an archive")
    func bankFromData() async throws {
        try await withTemporaryDirectory { dir in
            let root = dir.appendingPathComponent("pack")
            let tones = try Self.looseBank(in: root)
            let loose = try await Self.render {
                try SoundBank(contentsOf: root.appendingPathComponent("sfx/bank.json"), engine: $0)
            }
            let json = Data(Self.bankJSON.utf8)
            // The game's asset system: a dictionary of bytes, keyed by the path exactly as the bank
            // writes it (so "./tone2.wav" and "tone2.wav" are two sounds of the same bytes).
            let assets = [
                "tone0.wav": tones["tone0.wav"]!, "../sfx/tone1.wav": tones["tone1.wav"]!,
                "./tone2.wav": tones["tone2.wav"]!, "tone2.wav": tones["tone2.wav"]!,
            ]
            let custom = try await Self.render(sounds: 4) { engine in
                let bank = try SoundBank(
                    source: json, name: "sfx.bank.json", resolver: .custom { assets[$0] }, engine: engine)
                #expect(bank.url.absoluteString == "memory:///sfx.bank.json")
                return bank
            }
            #expect(custom == loose)
            let folder = try await Self.render {
                try SoundBank(source: json, resolver: .directory(root.appendingPathComponent("sfx")), engine: $0)
            }
            #expect(folder == loose)
            let archive = try AudioArchive(url: try Self.zip(root, to: "pack.zip", level: "-9"))
            let zipped = try await Self.render {
                try SoundBank(source: json, resolver: .archive(archive, directory: "sfx"), engine: $0)
            }
            #expect(zipped == loose)
        }
    }

    struct AssetStoreDown: Error, CustomStringConvertible {
        var description: String { "asset store offline" }
    }

    @Test(
        "A sound missing from the archive, a path out of it, a missing bank entry and a failing resolver each say so in one line"
    )
    func errors() throws {
        try withTemporaryDirectory { dir in
            let root = dir.appendingPathComponent("pack")
            let json = #"{"events": [{"name": "hit", "sounds": ["tone0.wav", "hits/tone9.wav"]}]}"#
            let tones = try Self.looseBank(json, in: root)
            let archive = try AudioArchive(url: try Self.zip(root, to: "pack.zip", level: "-0"))
            let zipPath = archive.url.path
            func reason(_ body: () throws -> Void) -> String? {
                (#expect(throws: BackbeatError.self) { try body() })?.reason
            }

            let missing = try #require(throws: BackbeatError.self) {
                try SoundBank.check(archive: archive, path: "sfx/bank.json")
            }
            #expect(missing.code == .invalidSoundBank)
            #expect(
                missing.description
                    == "\(zipPath):sfx/bank.json: SoundBank: invalid sound bank (event \"hit\": sound \"hits/tone9.wav\": no entry \"sfx/hits/tone9.wav\" in the archive \(zipPath))"
            )
            #expect(!missing.description.contains("\n"))

            #expect(
                reason { _ = try SoundBank.check(archive: archive, path: "sfx/other.json") }
                    == "the bank entry is not in the archive \(zipPath)")
            let escape = Data(#"{"events": [{"name": "up", "sounds": ["../../x.wav"]}]}"#.utf8)
            #expect(
                reason { _ = try SoundBank.check(source: escape, resolver: .archive(archive, directory: "sfx")) }
                    == "event \"up\": sounds[0]: \"../../x.wav\": leaves the archive")

            let data = Data(json.utf8)
            #expect(
                reason {
                    _ = try SoundBank.check(source: data, resolver: .custom { $0 == "tone0.wav" ? tones[$0] : nil })
                }
                    == "event \"hit\": sound \"hits/tone9.wav\": the game's resolver has no such sound")
            #expect(
                reason { _ = try SoundBank.check(source: data, resolver: .custom { _ in throw AssetStoreDown() }) }
                    == "event \"hit\": sound \"tone0.wav\": the game's resolver failed: asset store offline")
            let notAudio = try #require(
                reason { _ = try SoundBank.check(source: data, resolver: .custom { _ in Data("not audio".utf8) }) })
            #expect(notAudio.hasPrefix("event \"hit\": sound \"tone0.wav\": "), "\(notAudio)")
            #expect(
                reason { _ = try SoundBank.check(source: Data(), resolver: .directory(root)) } == "the bank is empty")
            let big = Data(repeating: 0x20, count: (4 << 20) + 1)
            #expect(
                reason { _ = try SoundBank.check(source: big, resolver: .directory(root)) }
                    == "the bank file is 4194305 bytes (4 MiB at most)")
        }
    }

    @Test("backbeat bank check archive.zip:path checks a bank inside an archive")
    func checkCommand() throws {
        try withTemporaryDirectory { dir in
            let root = dir.appendingPathComponent("pack")
            try Self.looseBank(in: root)
            let zip = try Self.zip(root, to: "pack.zip", level: "-9")
            let ok = try BackbeatTool.run(["bank", "check", zip.path + ":sfx/bank.json"])
            #expect(ok.status == 0, "\(ok.stderr)")
            #expect(ok.stdout.hasPrefix("2 events, 3 sound files, 57600 bytes decoded\n"), "\(ok.stdout)")
            let bad = try BackbeatTool.run(["bank", "check", zip.path + ":sfx/missing.json"])
            #expect(bad.status == 1 && bad.stdout.isEmpty)
            #expect(
                bad.stderr
                    == "backbeat: \(zip.path):sfx/missing.json: SoundBank: invalid sound bank (the bank entry is not in the archive \(zip.path))\n"
            )
        }
    }
}
