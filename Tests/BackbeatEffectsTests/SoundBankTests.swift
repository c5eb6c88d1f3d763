import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@Suite("SoundBank")
struct SoundBankTests {
    /// Writes three mono tones (0.1 s, 400/700/1000 Hz) under `sfx/` and a bank from `json`.
    static func bank(_ json: String, in dir: URL, name: String = "bank.json") throws -> URL {
        let sfx = dir.appendingPathComponent("sfx")
        try FileManager.default.createDirectory(at: sfx, withIntermediateDirectories: true)
        for (i, hz) in [400.0, 700, 1_000].enumerated() {
            let tone = TestSignal.sine(frequency: hz, duration: MediaTime(seconds: 0.1))
            try Songs.write(tone.interleavedFloats, to: sfx.appendingPathComponent("tone\(i).wav"), channels: 1)
        }
        let url = dir.appendingPathComponent(name)
        try Data(json.utf8).write(to: url)
        return url
    }

    static let valid = """
        {
          "version": 1,
          "buses": ["foley"],
          "events": [
            {
              "name": "step", "mode": "random", "avoidLast": 1,
              "sounds": ["sfx/tone0.wav", {"file": "sfx/tone1.wav", "weight": 2}, "sfx/tone2.wav"],
              "volume": 0.8, "volumeDecibels": [-6, 0], "pitchCents": [-100, 100], "pan": [-0.5, 0.5],
              "positionOffset": [1, 0, 1], "startDelay": [0, 0.01], "bus": "foley",
              "cooldown": 0.05, "maxInstances": 2, "steal": "quietest", "priority": 3, "seed": 77
            },
            {"name": "chord", "mode": "layered", "sounds": ["sfx/tone0.wav", "sfx/tone2.wav"]}
          ]
        }
        """

    @Test("A bank loads its events with their settings, shares sounds, preloads them and plays")
    func loadsAndPlays() async throws {
        try await withTemporaryDirectory { dir in
            let url = try Self.bank(Self.valid, in: dir)
            let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
            defer { engine.shutdown() }
            let foley = engine.makeBus(named: "foley")
            let bank = try SoundBank(contentsOf: url, engine: engine, buses: [foley])
            #expect(bank.events.map(\.name) == ["step", "chord"])
            #expect(bank.sounds.count == 3, "tone0 is shared by both events")
            #expect(bank.buses.first === foley, "the game's own bus, not a new one")
            let step = try #require(bank["step"])
            #expect(step.mode == .random && step.avoidRepeatingLast == 1 && step.volume == 0.8)
            #expect(step.weights == [1, 2, 1])
            #expect(step.randomization.pitchCents == -100...100 && step.randomization.pan == -0.5...0.5)
            #expect(step.randomization.positionOffset == Audio3DPoint(x: 1, y: 0, z: 1))
            #expect(step.randomization.startDelay.upperBound == MediaTime(seconds: 0.01))
            #expect(step.bus === foley && step.cooldown == MediaTime(seconds: 0.05))
            #expect(step.maximumInstances == 2 && step.stealPolicy == .quietest && step.priority == 3)
            #expect(bank["chord"]?.bus === engine.effectsBus && bank["missing"] == nil)
            try await bank.preload()
            #expect(bank.preloadedSounds.count == 3 && bank.sounds.allSatisfy(\.isLoaded))

            let voices = try #require(bank["chord"]).play()
            #expect(voices.map(\.sound.name) == ["tone0.wav", "tone2.wav"])
            let out = SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2)
            let window = Array(out[300..<4_000])
            #expect(SampleAnalysis.level(of: window, atFrequency: 400, sampleRate: 48_000) > 0.1)
            #expect(SampleAnalysis.level(of: window, atFrequency: 1_000, sampleRate: 48_000) > 0.1)
            #expect(SampleAnalysis.level(of: window, atFrequency: 700, sampleRate: 48_000) < 0.01)
        }
    }

    @Test("Preloading stops at the cache budget; the rest load when first played")
    func preloadWithinBudget() async throws {
        try await withTemporaryDirectory { dir in
            let url = try Self.bank(Self.valid, in: dir)
            let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
            defer { engine.shutdown() }
            engine.effectCacheBudget = 4_800 * 4 * 2  // two 0.1 s mono float tones
            let bank = try SoundBank(contentsOf: url, engine: engine)
            try await bank.preload()
            #expect(bank.preloadedSounds.map(\.name) == ["tone0.wav", "tone1.wav"])
            #expect(!bank.sounds[2].isLoaded)
        }
    }

    @Test("Two loads of a bank render the same samples (seeded events)")
    func banksRepeat() async throws {
        try await withTemporaryDirectory { dir in
            let url = try Self.bank(Self.valid, in: dir)
            func render() async throws -> [Float] {
                let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
                defer { engine.shutdown() }
                let bank = try SoundBank(contentsOf: url, engine: engine)
                try await bank.preload()
                var out: [Float] = []
                for _ in 0..<8 {
                    bank["step"]?.play()
                    out += try engine.render(frames: 4_800)
                }
                return out
            }
            let a = try await render()
            let b = try await render()
            #expect(SampleAnalysis.peak(a) > 0.05 && a == b)
        }
    }

    /// Bad banks: each with the text its one-line error must contain.
    static let badBanks: [(String, String)] = [
        (
            #"{"events": [{"name": "a", "sounds": ["sfx/tone0.wav"], "mode": "randum"}]}"#,
            #"event "a": mode: unknown mode "randum""#
        ),
        (
            #"{"events": [{"name": "a", "sounds": ["sfx/tone0.wav"], "pitchCents": [50, -50]}]}"#,
            #"event "a": pitchCents: min 50.0 is above max -50.0"#
        ),
        (
            "{\"events\": [\n{\"name\": \"a\",\n \"sounds\": [\"sfx/tone0.wav\"], \"pan\": [NaN, 1]}]}",
            "bad JSON: unexpected character \"N\" at line 3, column 39"
        ),
        (
            #"{"events": [{"name": "a", "sounds": ["sfx/tone0.wav"], "pan": ["NaN", 1]}]}"#,
            #"event "a": pan: must be [min, max], two numbers"#
        ),
        (
            #"{"events": [{"name": "a", "sounds": ["sfx/tone0.wav"], "volumeDecibels": [-6, 40]}]}"#,
            #"event "a": volumeDecibels: [-6.0, 40.0] is outside -120.0...24.0"#
        ),
        (
            #"{"events": [{"name": "a", "sounds": ["sfx/nope.wav"]}]}"#,
            #"event "a": sound "sfx/nope.wav": file not found"#
        ),
        (#"{"events": [{"name": "a", "sounds": ["bank.json"]}]}"#, #"event "a": sound "bank.json": "#),
        (
            #"{"events": [{"name": "a", "sounds": ["sfx/tone0.wav"], "bus": "ui"}]}"#,
            #"event "a": bus: unknown bus "ui""#
        ),
        (
            #"{"events": [{"name": "a", "sounds": ["sfx/tone0.wav"]}, {"name": "a", "sounds": ["sfx/tone1.wav"]}]}"#,
            #"duplicate event name "a""#
        ),
        (
            "{\"events\": [\n  {\"name\": \"a\", \"sounds\": [\"sfx/tone0.wav\"],\n   \"mode\": \"random\",\n   \"mode\": \"shuffle\"}]}",
            "bad JSON: duplicate key \"mode\" at line 4, column 4"
        ),
        (
            "{\"events\": [\n  {\"name\": \"a\",, \"sounds\": []}]}",
            "bad JSON: expected a key in quotes at line 2, column 16"
        ),
        (
            #"{"events": [{"name": "a", "sounds": ["sfx/tone0.wav"], "pich": [0, 1]}]}"#,
            #"event "a": pich: unknown key"#
        ),
        (
            #"{"events": [{"name": "a", "sounds": ["sfx/tone0.wav"], "steal": "youngest"}]}"#,
            #"event "a": steal: unknown steal "youngest""#
        ),
        (
            #"{"events": [{"name": "a", "sounds": ["sfx/tone0.wav"], "maxInstances": 0}]}"#,
            #"event "a": maxInstances: 0.0 is outside 1.0...1024.0"#
        ),
        (
            #"{"events": [{"name": "a", "sounds": ["sfx/tone0.wav"], "avoidLast": 1.5}]}"#,
            #"event "a": avoidLast: 1.5 is not a whole number"#
        ),
        (
            #"{"events": [{"name": "a", "sounds": [{"file": "sfx/tone0.wav", "weight": -1}]}]}"#,
            #"event "a": sounds[0]: weight must be"#
        ),
        (#"{"events": [{"name": "a", "sounds": []}]}"#, #"event "a": sounds: must be a non-empty array"#),
        (#"{"events": [{"sounds": ["sfx/tone0.wav"]}]}"#, #"event #1 has no "name""#),
        (
            #"{"events": [{"name": "a", "sounds": ["sfx/tone0.wav"], "cooldown": 1e999}]}"#,
            "bad JSON: number 1e999 is out of range"
        ),
        (
            #"{"events": [{"name": "a", "sounds": [{"file": "sfx/tone0.wav", "loop": {"start": 100, "end": 100}}]}]}"#,
            #"event "a": sounds[0]: loop: start 100 is not before end 100"#
        ),
        (
            #"{"events": [{"name": "a", "sounds": [{"file": "sfx/tone0.wav", "loop": {"start": -1, "end": 100}}]}]}"#,
            #"event "a": sounds[0]: loop: start -1.0 is not a whole number of frames"#
        ),
        (
            #"{"events": [{"name": "a", "sounds": [{"file": "sfx/tone0.wav", "loop": {"start": 0.5, "end": 100}}]}]}"#,
            #"event "a": sounds[0]: loop: start 0.5 is not a whole number of frames"#
        ),
        (
            #"{"events": [{"name": "a", "sounds": [{"file": "sfx/tone0.wav", "loop": {"start": 10}}]}]}"#,
            #"event "a": sounds[0]: loop: "end" must be a whole number of frames"#
        ),
        (
            #"{"events": [{"name": "a", "sounds": [{"file": "sfx/tone0.wav", "loop": {"start": 0, "length": 9}}]}]}"#,
            #"event "a": sounds[0]: loop: unknown key "length" (start, end)"#
        ),
        (
            #"{"events": [{"name": "a", "sounds": [{"file": "sfx/tone0.wav", "loop": [0, 9]}]}]}"#,
            #"event "a": sounds[0]: loop: an array, not {"start": frames, "end": frames}"#
        ),
        (
            #"{"events": [{"name": "a", "sounds": [{"file": "sfx/tone0.wav", "loop": {"start": 4800, "end": 9000}}]}]}"#,
            #"event "a": sound "sfx/tone0.wav": loop: start 4800 is not before the sound's end (4800 frames)"#
        ),
        (String(repeating: "[", count: 100_000), "bad JSON: nested more than 64 deep"),
        ("", "bad JSON: unexpected end of file at line 1, column 1"),
    ]

    @Test("A bad bank is reported in one line with the file, the entry and the reason", arguments: badBanks.indices)
    func badBank(index: Int) throws {
        let (json, expected) = Self.badBanks[index]
        try withTemporaryDirectory { dir in
            let url = try Self.bank(json, in: dir)
            let error = try #require(throws: BackbeatError.self) { try SoundBank.check(contentsOf: url) }
            #expect(error.code == .invalidSoundBank)
            #expect(error.description.hasPrefix(url.path + ": SoundBank: invalid sound bank ("))
            #expect(error.description.contains(expected), "\(error.description)")
            #expect(!error.description.contains("\n"))
            // Loading on an engine says the same, and makes nothing.
            try withOfflineEngine { engine in
                let again = try #require(throws: BackbeatError.self) {
                    try SoundBank(contentsOf: url, engine: engine)
                }
                #expect(again == error)
            }
        }
    }

    @Test(
        "A bank sound's loop region: the event plays the intro once, then loops the region to the sample until stopped")
    func loopRegion() async throws {
        try await withTemporaryDirectoryAsync { dir in
            // The file's own tags say 6,000..<18,000; the bank's region replaces them.
            let file = try await Fixtures.loopTaggedOgg(
                at: dir.appendingPathComponent("hum.ogg"), seconds: 0.5, loop: LoopPoints(start: 6_000, length: 12_000))
            let url = dir.appendingPathComponent("bank.json")
            try Data(
                #"""
                {"events": [
                  {"name": "hum", "sounds": [{"file": "hum.ogg", "loop": {"start": 3000, "end": 14500}}]},
                  {"name": "tail", "sounds": [{"file": "hum.ogg", "loop": {"start": 20000, "end": 99999}}]},
                  {"name": "plain", "sounds": ["hum.ogg"]}
                ]}
                """#.utf8
            ).write(to: url)
            #expect(try SoundBank.check(contentsOf: url).soundFileCount == 3, "one file, three loop regions")
            let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
            defer { engine.shutdown() }
            let bank = try SoundBank(contentsOf: url, engine: engine)
            try await bank.preload()
            #expect(
                bank.sounds.map(\.loopPoints) == [
                    try LoopPoints(start: 3_000, end: 14_500),
                    try LoopPoints(start: 20_000, end: 24_000),  // an end past the sound's end moves to the end
                    try LoopPoints(start: 6_000, end: 18_000),  // no "loop": the file's tags
                ])
            let voice = try #require(bank["hum"]?.play().first)
            voice.renderingAlgorithm = .stereoPassThrough
            #expect(voice.looping == .forever)
            let out = try engine.render(frames: 3_000 + 11_500 * 4 + 4_800)
            let first = EffectLoopPointsTests.lag(of: file, in: out)
            #expect(
                EffectLoopPointsTests.worst(out, first, file, 0, count: 14_500) < 1e-4, "the intro and the first loop")
            for n in 1...3 {
                let seam = first + 3_000 + 11_500 * n
                #expect(
                    EffectLoopPointsTests.worst(out, seam, file, 3_000, count: 11_500) < 1e-4,
                    "loop \(n + 1) is the region again, from its first frame")
                // The frame after the loop end is the frame at the loop start, not the one after the end.
                #expect(abs(out[seam * 2] - file[3_000 * 2]) < 1e-4)
                #expect(abs(out[seam * 2] - file[14_500 * 2]) > 1e-3)
            }
            #expect(voice.loopCount == 4 && !voice.isFinished, "still looping")
            // An event's sound without "loop" plays once, as before.
            let once = try #require(bank["plain"]?.play().first)
            #expect(once.looping == .once)
        }
    }

    @Test("A missing bank file is reported")
    func missingBank() throws {
        let url = URL(fileURLWithPath: "/nonexistent/bank.json")
        let error = try #require(throws: BackbeatError.self) { try SoundBank.check(contentsOf: url) }
        #expect(
            error.description == "/nonexistent/bank.json: SoundBank: invalid sound bank (the bank file does not exist)")
    }

    @Test("backbeat bank check: exit 0 and a summary, or exit 1 and the one-line reason")
    func checkCommand() throws {
        try withTemporaryDirectory { dir in
            let good = try Self.bank(Self.valid, in: dir)
            let ok = try BackbeatTool.run(["bank", "check", good.path])
            #expect(ok.status == 0, "\(ok.stderr)")
            #expect(ok.stdout.hasPrefix("2 events, 3 sound files, 57600 bytes decoded, buses: foley\n"))
            #expect(ok.stdout.contains("  step: random, 3 sounds, bus foley"))
            #expect(ok.stdout.contains("  chord: layered, 2 sounds, bus effects"))

            let bad = try Self.bank(Self.badBanks[0].0, in: dir, name: "bad.json")
            let r = try BackbeatTool.run(["bank", "check", bad.path])
            #expect(r.status == 1)
            #expect(r.stdout.isEmpty)
            #expect(
                r.stderr
                    == "backbeat: \(bad.path): SoundBank: invalid sound bank (event \"a\": mode: unknown mode \"randum\" (random, shuffle, sequence, layered))\n"
            )
        }
    }
}
