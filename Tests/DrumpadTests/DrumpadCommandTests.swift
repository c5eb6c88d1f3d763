import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import DrumpadCore
import Foundation
import Testing

private func us(_ micros: Int64) -> MediaTime { MediaTime(value: micros, timescale: 1_000_000) }

@Suite struct DrumpadCommandTests {
    static let good: [(String, DrumpadCommand?)] = [
        ("", nil), ("   \t ", nil), ("# a comment", nil), ("   # indented comment", nil),
        ("1", .pad(.snare, velocity: 127)), ("2", .pad(.bass, velocity: 127)),
        ("3 64", .pad(.tambourine, velocity: 64)), ("4 0", .pad(.maraca, velocity: 0)),
        ("snare", .pad(.snare, velocity: 127)), ("BASS 100", .pad(.bass, velocity: 100)),
        ("tambourine 127", .pad(.tambourine, velocity: 127)), ("\tmaraca   7  ", .pad(.maraca, velocity: 7)),
        ("snare 100 # loud", .pad(.snare, velocity: 100)),
        ("play", .play), ("Pause", .pause), ("toggle", .toggle), ("next", .next), ("prev", .previous),
        ("previous", .previous), ("stop", .stop), ("pick", .pick), ("now", .nowPlaying), ("quit", .quit),
        ("seek 1:23", .seek(us(83_000_000))), ("seek 0:00", .seek(.zero)), ("seek 1:02:03", .seek(us(3_723_000_000))),
        ("seek 83", .seek(us(83_000_000))), ("seek 1:05.25", .seek(us(65_250_000))), ("seek 500ms", .seek(us(500_000))),
        ("repeat none", .repeatMode(.none)), ("repeat one", .repeatMode(.one)), ("repeat ALL", .repeatMode(.all)),
        ("shuffle off", .shuffle(.off)), ("shuffle songs", .shuffle(.songs)), ("shuffle albums", .shuffle(.albums)),
        ("random", .random(genre: nil)), ("random Rock", .random(genre: "Rock")),
        ("random  Hip   Hop ", .random(genre: "Hip Hop")),
        ("session ambient", .session(.ambient, nil)), ("session soloAmbient", .session(.soloAmbient, nil)),
        ("session playback", .session(.playback, nil)), ("session playback mix", .session(.playback, .mix)),
        ("session playback duck", .session(.playback, .duck)),
        ("env call-begin", .environment(.callBegan)), ("env call-end", .environment(.callEnded(resume: false))),
        ("env call-end resume", .environment(.callEnded(resume: true))), ("env unplug", .environment(.unplug)),
        ("env plug", .environment(.plug)), ("env silent on", .environment(.silent(true))),
        ("env silent off", .environment(.silent(false))), ("env other-audio on", .environment(.otherAudio(true))),
        ("env other-audio off", .environment(.otherAudio(false))),
        ("wait 1.5", .wait(us(1_500_000))), ("wait 1.5s", .wait(us(1_500_000))), ("wait 250ms", .wait(us(250_000))),
        ("wait 0.5ms", .wait(us(500))), ("wait 1:05", .wait(us(65_000_000))), ("wait 0", .wait(.zero)),
        ("quantize off", .quantize(.off)), ("quantize on", .quantize(.beat)), ("quantize BEAT", .quantize(.beat)),
        ("quantize 1/4", .quantize(.beat)), ("quantize 1/8", .quantize(.eighth)),
        ("quantize 1/16", .quantize(.sixteenth)),
        ("wait 0.000001", .wait(us(1))), ("wait 600", .wait(us(600_000_000))),
        ("wait 2 # let it ring", .wait(us(2_000_000))),
        ("place snare 3 0 0", .place(.snare, Audio3DPoint(x: 3, y: 0, z: 0))),
        ("place 2 -1.5 +2 .25", .place(.bass, Audio3DPoint(x: -1.5, y: 2, z: 0.25))),
        ("PLACE Maraca 0 0 -3", .place(.maraca, Audio3DPoint(x: 0, y: 0, z: -3))),
        ("place tambourine 10000 -10000 -0", .place(.tambourine, Audio3DPoint(x: 10_000, y: -10_000, z: 0))),
        ("place snare off", .place(.snare, nil)), ("place 4 OFF", .place(.maraca, nil)),
        ("turn 90", .turn(90)), ("turn -45.5", .turn(-45.5)), ("turn 0", .turn(0)), ("turn 360", .turn(360)),
        ("turn -360", .turn(-360)), ("hrtf on", .hrtf(true)), ("HRTF OFF", .hrtf(false)),
        ("reverb hangar", .reverb("hangar")), ("REVERB Cave", .reverb("cave")), ("reverb off", .reverb(nil)),
        ("reverb castle_smallroom", .reverb("castle_smallroom")), ("reverb bathroom", .reverb("bathroom")),
        ("occlude snare -20", .occlude(.snare, -20)), ("occlude 2 -100", .occlude(.bass, -100)),
        ("occlude maraca 0", .occlude(.maraca, 0)), ("occlude 3 -0.5", .occlude(.tambourine, -0.5)),
        ("menu on", .menu(true)), ("MENU Off", .menu(false)),
        ("bank sfx.bank.json", .bank("sfx.bank.json")), ("bank My Banks/Hits.json", .bank("My Banks/Hits.json")),
        ("event boom", .event("boom")), ("EVENT Boom", .event("Boom")),
        ("pad 1 boom", .mapPad(.snare, event: "boom")), ("pad maraca clap", .mapPad(.maraca, event: "clap")),
    ]

    static let bad: [String] = [
        "bogus", "5", "0", "01", "+1", "-1", "snare 128", "snare -1", "snare 1.0", "snare 0x10", "snare 1 2",
        "play now", "quit please", "seek", "seek 1:5", "seek 1:60", "seek 1:2:3", "seek :30", "seek 1:", "seek -1",
        "seek 24:00:01", "seek 1 2", "repeat", "repeat twice", "repeat one all", "shuffle on", "shuffle",
        "session", "session loud", "session ambient mix", "session playback shout", "session playback mix duck",
        "env", "env call-end later", "env silent", "env silent maybe", "env other-audio", "env unplug now",
        "quantize", "quantize 1/3", "quantize on off", "quantize 1/32",
        "wait", "wait nan", "wait NaN", "wait inf", "wait infinity", "wait -1", "wait -0.5s", "wait 1e3", "wait 0x10",
        "wait 601", "wait 10:01", "wait 1.", "wait .5", "wait 1..5", "wait 1.5.5", "wait 1.0000001",
        "wait 99999999999999999999", "wait 1.5 s", "wait 250 ms", "wait 1.5h", "wait 0.0001ms", "wait 1 2",
        "wait ١", "wait １", "random \u{1B}[2J", "random Rock\u{0}", "\u{0}", "\u{FFFD}\u{FFFD}", "snare\u{0}",
        "p\u{301}lay", "PLAY\u{200B}",
        "place", "place snare", "place snare 3", "place snare 3 0", "place snare 3 0 0 0", "place drum 3 0 0",
        "place 5 3 0 0", "place off", "place snare on", "place snare off 0", "place snare nan 0 0",
        "place snare 0 inf 0", "place snare 0 0 -infinity", "place snare 1e3 0 0", "place snare 0x10 0 0",
        "place snare 10000.5 0 0", "place snare 0 0 -99999999999999999999", "place snare 3m 0 0",
        "place snare - 0 0", "place snare . 0 0", "place snare 1..5 0 0", "place snare --1 0 0",
        "turn", "turn nan", "turn inf", "turn 361", "turn -360.5", "turn 1e2", "turn 90 0", "turn left",
        "turn 99999999999999999999999999999999999999999", "hrtf", "hrtf yes", "hrtf on off",
        "reverb", "reverb nowhere", "reverb hangar cave", "reverb efx_reverb_preset_hangar", "reverb hangar\u{0}",
        "bank", "event", "event a b", "pad", "pad 1", "pad 5 boom", "pad 0 boom", "pad drum boom",
        "pad 1 boom clap", "occlude", "occlude snare", "occlude snare 10", "occlude snare -101", "occlude snare nan",
        "occlude 5 -10",
        "occlude snare -10 dB", "occlude snare -1e2", "menu", "menu maybe", "menu on off",
    ]

    @Test(arguments: good)
    func parsesGoodLines(_ line: String, _ expected: DrumpadCommand?) throws {
        #expect(try DrumpadCommand.parse(line) == expected)
    }

    @Test(arguments: good.compactMap(\.1))
    func descriptionParsesBackToTheCommand(_ command: DrumpadCommand) throws {
        #expect(try DrumpadCommand.parse(command.description) == command)
    }

    @Test(arguments: bad)
    func refusesBadLinesWithOneClearLine(_ line: String) {
        do {
            let command = try DrumpadCommand.parse(line)
            Issue.record("\(line.debugDescription) parsed as \(String(describing: command))")
        } catch {
            expectOneLine(error)
            #expect(error.description.contains("expected"))
        }
    }

    @Test func errorNamesTheCommandAndQuotesTheInput() {
        #expect(throws: DrumpadCommandError.self) { try DrumpadCommand.parse("repeat twice") }
        do {
            _ = try DrumpadCommand.parse("repeat twice")
        } catch {
            #expect(error.command == "repeat")
            #expect(error.description == "repeat: expected none, one or all, got \"twice\"")
        }
        do {
            _ = try DrumpadCommand.parse("hello\u{7}\u{1B}[2J there")
        } catch {
            #expect(error.command == nil)
            #expect(error.description.hasPrefix("unknown command \"hello??[2J\""))
        }
        do {
            _ = try DrumpadCommand.parse("place snare nan 0 0")
        } catch {
            #expect(error.command == "place")
            #expect(
                error.description
                    == "place: expected a pad (1-4 or a name) and X Y Z in metres within ±10000, or off, got \"snare nan 0 0\""
            )
        }
    }

    @Test func durationsAreExactEngineTime() throws {
        #expect(try DrumpadCommand.parse("wait 1.5s") == .wait(MediaTime(frames: 72_000, sampleRate: 48_000)))
        guard case let .wait(time)? = try DrumpadCommand.parse("wait 20.833333") else {
            Issue.record("not a wait")
            return
        }
        #expect(time.value == 20_833_333 && time.timescale == 1_000_000)
    }

    @Test func velocityMapsToGain() {
        #expect(DrumpadCommand.Pad.gain(forVelocity: 127) == 1)
        #expect(DrumpadCommand.Pad.gain(forVelocity: 0) == 0)
        #expect(abs(DrumpadCommand.Pad.gain(forVelocity: 64) - 64 / 127) < 1e-6)
        #expect(DrumpadCommand.Pad.allCases.map(\.number) == [1, 2, 3, 4])
    }

    @Test func megabyteLinesAreRefusedUnread() throws {
        let megabyte = String(repeating: "a", count: 1 << 20)
        #expect(throws: DrumpadCommandError.self) { try DrumpadCommand.parse(megabyte) }
        #expect(throws: DrumpadCommandError.self) {
            try DrumpadCommand.parse("wait " + String(repeating: "9", count: 1 << 20))
        }
        #expect(try DrumpadCommand.parse("  # " + megabyte) == nil)
        let longest = "random " + String(repeating: "x", count: DrumpadCommand.maximumLineLength - 7)
        #expect(try DrumpadCommand.parse(longest) != nil)
        do {
            _ = try DrumpadCommand.parse(longest + "x")
        } catch {
            expectOneLine(error)
            #expect(error.description.contains("\(DrumpadCommand.maximumLineLength + 1) bytes"))
        }
    }

    /// Random bytes, decoded lossily as the demo does, and valid lines with bytes spliced in:
    /// every one parses or throws a one-line error.
    @Test func garbageNeverCrashes() {
        var random = SplitMix64(seed: 8)
        let seeds = Self.good.map(\.0)
        var refused = 0
        for round in 0..<3000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<random.below(200)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            } else {
                bytes = Array(seeds[random.below(seeds.count)].utf8)
                for _ in 0..<(1 + random.below(3)) {
                    bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: random.below(bytes.count + 1))
                }
            }
            let line = String(decoding: bytes, as: UTF8.self)
            do {
                _ = try DrumpadCommand.parse(line)
            } catch {
                refused += 1
                expectOneLine(error)
            }
        }
        #expect(refused > 1500)
    }

    @Test func bundledDemoScriptIsValidAndCoversTheTour() throws {
        let text = try String(contentsOf: Assets.root.appendingPathComponent("Demo/demo.script"), encoding: .utf8)
        var commands: [DrumpadCommand] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let command = try DrumpadCommand.parse(String(line)) { commands.append(command) }
        }
        #expect(commands.last == .quit)
        #expect(commands.contains(.random(genre: "Rock")))
        #expect(commands.contains(.next))
        #expect(commands.contains(.environment(.silent(true))) && commands.contains(.environment(.silent(false))))
        let unplug = try #require(commands.firstIndex(of: .environment(.unplug)))
        let plug = try #require(commands.firstIndex(of: .environment(.plug)))
        #expect(commands[unplug..<plug].contains { if case .pad = $0 { true } else { false } })
        #expect(Set(commands.compactMap { if case let .pad(pad, _) = $0 { pad } else { nil } }).count == 4)
        #expect(commands.contains { if case .wait = $0 { true } else { false } })
        // The level music: explore, intensity, a stinger, then combat.
        let explore = try #require(commands.firstIndex(of: .section("explore")))
        let combat = try #require(commands.firstIndex(of: .section("combat")))
        let stinger = try #require(commands.firstIndex(of: .stinger))
        #expect(explore < stinger && stinger < combat)
        #expect(commands[explore..<combat].contains { if case .intensity = $0 { true } else { false } })
    }

    private func expectOneLine(_ error: DrumpadCommandError, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = error.description
        #expect(!text.isEmpty && text.count < 360, sourceLocation: sourceLocation)
        #expect(!text.contains { $0.isNewline }, sourceLocation: sourceLocation)
    }

    /// Every word the parser takes as a command, pads aside (help's list).
    static let everyCommandWord = [
        "play", "pause", "toggle", "next", "prev", "seek", "stop", "repeat", "shuffle", "random", "pick", "now",
        "quantize", "session", "env", "place", "turn", "hrtf", "reverb", "occlude", "menu", "intensity", "section",
        "stinger", "bank", "event", "pad", "geometry", "door", "listener", "map", "wait", "quit",
    ]

    @Test("An unknown command's message names every command and every pad")
    func unknownCommandNamesEveryCommand() throws {
        let error = try #require(throws: DrumpadCommandError.self) { try DrumpadCommand.parse("bogus") }
        let named = Set(
            error.description.split(separator: ";").last!.split(whereSeparator: { " ,()".contains($0) }).map(
                String.init))
        for word in Self.everyCommandWord + ["snare", "bass", "tambourine", "maraca"] {
            #expect(named.contains(word), "\(word) is missing from: \(error.description)")
        }
    }

    @Test("The command table is what the parser accepts, and the unknown-command message is made from it")
    func commandTableMatchesTheParser() throws {
        #expect(DrumpadCommand.commandWords == Self.everyCommandWord)
        let message = try #require(throws: DrumpadCommandError.self) { try DrumpadCommand.parse("bogus") }.description
        for word in DrumpadCommand.commandWords {
            #expect(message.contains(" \(word)"), "\(word)")
            // Each word reaches its own case: it parses, or complains about its arguments, never "unknown command".
            do {
                _ = try DrumpadCommand.parse(word)
            } catch {
                #expect(error.command == word, "\(word): \(error.description)")
            }
        }
        for (alias, word) in DrumpadCommand.commandAliases {
            #expect(try DrumpadCommand.parse(alias) == DrumpadCommand.parse(word))
        }
    }
}

// MARK: - The committed demo assets

enum Assets {
    /// The repository root, found from this file (Tests/DrumpadTests/…).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let drums = root.appendingPathComponent("Assets/Drums")
    static let music = root.appendingPathComponent("Assets/Music")
    static let level = root.appendingPathComponent("Assets/Level")

    /// A 16-bit PCM WAV: format and samples scaled to -1...1.
    static func readWAV(_ url: URL) throws -> (rate: Int, channels: Int, samples: [Float]) {
        let data = [UInt8](try Data(contentsOf: url))
        func u32(_ at: Int) -> Int {
            Int(data[at]) | Int(data[at + 1]) << 8 | Int(data[at + 2]) << 16 | Int(data[at + 3]) << 24
        }
        func u16(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }
        try #require(
            data.count >= 12 && data[0..<4].elementsEqual("RIFF".utf8) && data[8..<12].elementsEqual("WAVE".utf8))
        var offset = 12
        var rate = 0
        var channels = 0
        var bits = 0
        while offset + 8 <= data.count {
            let id = String(decoding: data[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            let body = offset + 8
            if id == "fmt " {
                #expect(u16(body) == 1, "PCM")
                channels = u16(body + 2)
                rate = u32(body + 4)
                bits = u16(body + 14)
            } else if id == "data" {
                try #require(bits == 16 && body + size <= data.count)
                let samples = stride(from: body, to: body + size - 1, by: 2).map {
                    Float(Int16(truncatingIfNeeded: u16($0))) / 32768
                }
                return (rate, channels, samples)
            }
            offset = body + size + size % 2
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    /// `vorbiscomment -l FILE`, as tag name (uppercased) → values.
    static func vorbisComments(_ url: URL) throws -> [String: [String]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["vorbiscomment", "-l", url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "vorbiscomment -l failed (install vorbis-tools: make deps)")
        var tags: [String: [String]] = [:]
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            tags[line[..<eq].uppercased(), default: []].append(String(line[line.index(after: eq)...]))
        }
        return tags
    }

    /// Sample rate and length in seconds of an Ogg Vorbis file, from its headers and last granule position.
    static func oggDuration(_ url: URL) throws -> (rate: Int, seconds: Double) {
        let data = [UInt8](try Data(contentsOf: url))
        let id = try #require(data.firstRange(of: Array("\u{1}vorbis".utf8)))
        let r = id.upperBound + 5
        let rate = Int(data[r]) | Int(data[r + 1]) << 8 | Int(data[r + 2]) << 16 | Int(data[r + 3]) << 24
        var last = 0
        for i in stride(from: data.count - 27, through: 0, by: -1) where data[i..<i + 4].elementsEqual("OggS".utf8) {
            last = i
            break
        }
        var granule: UInt64 = 0
        for k in 0..<8 { granule |= UInt64(data[last + 6 + k]) << (8 * UInt64(k)) }
        return (rate, Double(granule) / Double(rate))
    }

    static func isPNG(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }
}

@Suite struct DemoAssetTests {
    static let drums: [(String, Double)] = [("snare", 0.35), ("bass", 0.5), ("tambourine", 0.6), ("maraca", 0.2)]
    /// Every pad's sounds: the drum and its two variations.
    static let variations: [(String, Double)] = drums.flatMap { name, seconds in
        ["", "-2", "-3"].map { ("\(name)\($0)", seconds) }
    }

    @Test(arguments: variations)
    func drumIsShortLoudAndStartsAtOnce(_ name: String, _ seconds: Double) throws {
        let wav = try Assets.readWAV(Assets.drums.appendingPathComponent("\(name).wav"))
        #expect(wav.rate == 48_000 && wav.channels == 1)
        #expect(abs(Double(wav.samples.count) / 48_000 - seconds) < 0.001)
        let peak = SampleAnalysis.peak(wav.samples)
        #expect(peak > 0.7 && peak < 0.95, "peak between -3 and -0.5 dBFS")
        #expect(SampleAnalysis.rms(wav.samples) > 0.05)
        #expect(SampleAnalysis.peak(wav.samples.prefix(960)) > 0.3, "audible within 20 ms: a pad must not lag")
        #expect(SampleAnalysis.peak(wav.samples.suffix(48)) < 0.01, "ends in silence, no click")
    }

    @Test(arguments: drums.map(\.0))
    func variationsMatchTheirDrumButDiffer(_ name: String) throws {
        let first = try Assets.readWAV(Assets.drums.appendingPathComponent("\(name).wav"))
        let firstOnset = try #require(SampleAnalysis.firstAudibleFrame(first.samples, channels: 1, threshold: 0.05))
        for suffix in ["-2", "-3"] {
            let other = try Assets.readWAV(Assets.drums.appendingPathComponent("\(name)\(suffix).wav"))
            #expect(other.samples.count == first.samples.count)
            #expect(other.samples != first.samples, "\(name)\(suffix) is a variation, not a copy")
            let onset = try #require(SampleAnalysis.firstAudibleFrame(other.samples, channels: 1, threshold: 0.05))
            #expect(abs(onset - firstOnset) <= 48, "onsets within 1 ms: \(onset) vs \(firstOnset)")
            let ratio = SampleAnalysis.rms(other.samples) / SampleAnalysis.rms(first.samples)
            #expect(ratio > 0.8 && ratio < 1.25, "levels within 2 dB: \(ratio)")
        }
    }

    @Test func padBankDefinesARandomEventPerPadOverItsVariations() throws {
        let summary = try SoundBank.check(contentsOf: Assets.drums.appendingPathComponent("pads.json"))
        #expect(summary.events.map(\.name) == Self.drums.map(\.0))
        #expect(summary.events.allSatisfy { $0.mode == .random && $0.soundCount == 3 && $0.bus == "effects" })
        #expect(summary.soundFileCount == 12)
    }

    @Test func drumsSoundLikeTheirNames() throws {
        func crossingsPerSecond(_ name: String) throws -> Double {
            let wav = try Assets.readWAV(Assets.drums.appendingPathComponent("\(name).wav"))
            return Double(SampleAnalysis.risingZeroCrossings(wav.samples)) / (Double(wav.samples.count) / 48_000)
        }
        #expect(try crossingsPerSecond("bass") < 300, "a bass drum is low")
        for bright in ["snare", "tambourine", "maraca"] {
            #expect(try crossingsPerSecond(bright) > 5_000, "\(bright) is bright")
        }
    }

    static let songs: [String] = [
        "garage-tapes-01-open-circuit", "garage-tapes-02-loud-pedal", "night-shift-01-sodium-lights",
        "night-shift-02-half-moon-drive", "backbeat-sampler-01-backroad-anthem", "backbeat-sampler-02-blue-hour-walk",
    ]

    @Test(arguments: songs)
    func songIsTaggedWithArtwork(_ stem: String) throws {
        let url = Assets.music.appendingPathComponent("\(stem).ogg")
        let (rate, seconds) = try Assets.oggDuration(url)
        #expect(rate == 48_000)
        #expect(seconds > 20 && seconds < 40)
        let tags = try Assets.vorbisComments(url)
        for name in ["TITLE", "ARTIST", "ALBUM", "ALBUMARTIST", "GENRE", "TRACKNUMBER", "DISCNUMBER", "DATE", "BPM"] {
            #expect(tags[name]?.count == 1 && tags[name]?.first?.isEmpty == false, "\(stem) has one \(name)")
        }
        let bpm = try #require(Int(tags["BPM"]?.first ?? ""))
        #expect((60...200).contains(bpm))
        let picture = try #require(tags["METADATA_BLOCK_PICTURE"]?.first.flatMap { Data(base64Encoded: $0) })
        let block = [UInt8](picture)
        func u32(_ at: Int) -> Int { block[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        #expect(u32(0) == 3, "front cover")
        let mimeLength = u32(4)
        #expect(String(decoding: block[8..<8 + mimeLength], as: UTF8.self) == "image/png")
        let descriptionEnd = 12 + mimeLength + u32(8 + mimeLength)
        let width = u32(descriptionEnd)
        let height = u32(descriptionEnd + 4)
        let length = u32(descriptionEnd + 16)
        let image = block[(descriptionEnd + 20)...]
        #expect(image.count == length && Assets.isPNG(image))
        #expect(
            width > 0 && width == u32(descriptionEnd + 20 + 16) && height == u32(descriptionEnd + 20 + 20),
            "the block's size matches the PNG's header")
    }

    @Test func libraryHasAlbumsArtistsGenresAndOneLookPerAlbum() throws {
        var artworkByAlbum: [String: Set<String>] = [:]
        var artists = Set<String>()
        var genres = Set<String>()
        for stem in Self.songs {
            let tags = try Assets.vorbisComments(Assets.music.appendingPathComponent("\(stem).ogg"))
            let album = tags["ALBUM"]?.first ?? ""
            artworkByAlbum[album, default: []].insert(tags["METADATA_BLOCK_PICTURE"]?.first ?? "")
            artists.insert(tags["ARTIST"]?.first ?? "")
            genres.insert(tags["GENRE"]?.first ?? "")
        }
        #expect(artworkByAlbum.count >= 2 && artists.count >= 2)
        #expect(genres.contains("Rock") && genres.count >= 3)
        #expect(artworkByAlbum.values.allSatisfy { $0.count == 1 }, "an album's songs share its cover")
        #expect(Set(artworkByAlbum.values.compactMap(\.first)).count == artworkByAlbum.count, "each album its own look")
    }

    @Test func playlistListsExistingSongsAndPlaceholderIsAPNG() throws {
        let m3u = try String(contentsOf: Assets.music.appendingPathComponent("demo-mix.m3u"), encoding: .utf8)
        #expect(m3u.hasPrefix("#EXTM3U"))
        let entries = m3u.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(Set(entries.map(String.init)) == Set(Self.songs.map { "\($0).ogg" }))
        for entry in entries {
            #expect(FileManager.default.fileExists(atPath: Assets.music.appendingPathComponent(String(entry)).path))
        }
        let placeholder = try Data(contentsOf: Assets.music.appendingPathComponent("noartwork.png"))
        #expect(Assets.isPNG([UInt8](placeholder)))
    }
}

/// The level music: two sections of two sample-locked stems each, loop tags,
/// a tempo, and a stinger, as `AdaptiveMusicPlayer` takes them.
@Suite struct LevelMusicAssetTests {
    static let bar = 96_000  // 120 BPM in 4/4 at 48 kHz
    /// Each section: its intro and loop, in bars.
    static let sections: [(String, Int, Int)] = [("explore", 1, 4), ("combat", 0, 4)]

    @Test(arguments: sections)
    func stemsAreSampleLockedLoopsAtTheTempo(_ section: String, _ introBars: Int, _ loopBars: Int) async throws {
        var lengths: [Int] = []
        for stem in ["pads", "drums"] {
            let url = Assets.level.appendingPathComponent("\(section)-\(stem).ogg")
            let read = try Media.read(url)
            #expect(read.format.sampleRate == 48_000)
            let frames = read.floats.count / read.format.channelCount
            lengths.append(frames)
            let tags = try await AudioAsset(url: url).load(.tags)
            #expect(tags.beatsPerMinute == 120)
            #expect(TempoMap(tags: tags) == (try TempoMap(beatsPerMinute: 120)))
            let loop = try #require(tags.loopPoints, "\(section)-\(stem) has loop tags")
            #expect(loop.start == Int64(introBars * Self.bar) && loop.length == Int64(loopBars * Self.bar))
            #expect(frames == (introBars + loopBars) * Self.bar, "the file ends where its loop does")
            // The pads sound from the first bar; the drums come in with the loop (after the intro).
            let first = try #require(SampleAnalysis.firstAudibleFrame(read.floats, channels: read.format.channelCount))
            let entry = stem == "drums" ? introBars * Self.bar : 0
            #expect(abs(first - entry) < 480, "\(section)-\(stem) starts at \(first), not \(entry)")
        }
        #expect(lengths[0] == lengths[1], "\(section)'s stems have one length: \(lengths)")
    }

    @Test(arguments: sections)
    func drumsHitOnTheEighthNoteGrid(_ section: String, _ introBars: Int, _ loopBars: Int) throws {
        let read = try Media.read(Assets.level.appendingPathComponent("\(section)-drums.ogg"))
        let mono = SampleAnalysis.channel(read.floats, 0, of: read.format.channelCount)
        let loop = Array(mono[(introBars * Self.bar)...])
        let onsets = SampleAnalysis.onsetFrames(loop, channels: 1, threshold: 0.05, minimumGap: 4_800)
        // Most beats of the loop are heard as onsets (a kick on each; a crash's ring can hide one).
        #expect(onsets.count >= 3 * loopBars, "\(onsets)")
        let eighth = Self.bar / 8
        for onset in onsets {
            let offGrid = min(onset % eighth, eighth - onset % eighth)
            #expect(offGrid <= 240, "\(section) drum onset at \(onset) is \(offGrid) frames off the eighth-note grid")
        }
    }

    @Test func stingerIsShortAndTheSectionsMakeAPlayer() throws {
        let stinger = try Media.read(Assets.level.appendingPathComponent("stinger.ogg"))
        let frames = stinger.floats.count / stinger.format.channelCount
        #expect(frames == 72_000)
        #expect(SampleAnalysis.firstAudibleFrame(stinger.floats, channels: stinger.format.channelCount) ?? .max < 480)
        #expect(SampleAnalysis.peak(stinger.floats.suffix(96)) < 0.01, "ends in silence")
        let engine = try AudioEngine(output: .offline())
        defer { engine.shutdown() }
        let sections = Self.sections.map { name, _, _ in
            MusicSection(
                name: name,
                stems: ["pads", "drums"].map {
                    MusicStem(
                        layer: $0, asset: AudioAsset(url: Assets.level.appendingPathComponent("\(name)-\($0).ogg")))
                })
        }
        let player = try AdaptiveMusicPlayer(engine: engine, sections: sections)
        #expect(player.sectionNames == ["combat", "explore"])
        #expect(player.tempo(of: "explore") == (try TempoMap(beatsPerMinute: 120)))
    }
}
