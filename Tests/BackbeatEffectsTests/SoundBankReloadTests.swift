import Backbeat
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// How an editor saves: over the file itself, or a temporary file renamed over it.
enum SaveStyle: String, CaseIterable, Sendable {
    case inPlace, rename

    /// Writes `data` to `url` the way this style does.
    func save(_ data: Data, to url: URL) throws {
        switch self {
        case .inPlace:
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: data)
            try handle.close()
        case .rename:
            let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).swp")
            try data.write(to: temporary)
            #expect(Foundation.rename(temporary.path, url.path) == 0)
        }
    }
}

/// A bank edited while the game plays: the offline engine picks the change up
/// at the next render's first update step, so each test writes, then renders.
@Suite("SoundBank reload")
struct SoundBankReloadTests {
    static let rate = 48_000

    /// A bank with one event per name, each playing `sfx/<file>`.
    static func json(_ events: [(name: String, file: String)]) -> String {
        let entries = events.map { #"    {"name": "\#($0.name)", "sounds": ["sfx/\#($0.file)"]}"# }
        return "{\n  \"events\": [\n" + entries.joined(separator: ",\n") + "\n  ]\n}\n"
    }

    /// Writes a low (400 Hz) and a high (1,000 Hz) tone of 0.1 s under `sfx/`, and the bank.
    static func setUp(_ json: String, in dir: URL) throws -> URL {
        let sfx = dir.appendingPathComponent("sfx")
        try FileManager.default.createDirectory(at: sfx, withIntermediateDirectories: true)
        for (name, hz) in [("low.wav", 400.0), ("high.wav", 1_000)] {
            let tone = TestSignal.sine(frequency: hz, duration: MediaTime(seconds: 0.1))
            try Songs.write(tone.interleavedFloats, to: sfx.appendingPathComponent(name), channels: 1)
        }
        let url = dir.appendingPathComponent("sfx.bank.json")
        try Data(json.utf8).write(to: url)
        return url
    }

    /// The left channel's level at 400 Hz and at 1,000 Hz over `frames` of `samples`.
    static func levels(_ samples: [Float], _ frames: Range<Int>) -> (low: Float, high: Float) {
        let left = Array(SampleAnalysis.channel(samples, 0, of: 2)[frames])
        return (
            SampleAnalysis.level(of: left, atFrequency: 400, sampleRate: rate),
            SampleAnalysis.level(of: left, atFrequency: 1_000, sampleRate: rate)
        )
    }

    /// Records what a bank reports.
    final class Reports: Sendable {
        let events = LockedValueBox<[SoundBank.Event]>([])
        init(_ bank: SoundBank) { bank.observe { [events] event in events.withLockedValue { $0.append(event) } } }
        var all: [SoundBank.Event] { events.withLockedValue { $0 } }
    }

    @Test(
        "An edit saved while an event plays: the play carries on, the next play is the new sound",
        arguments: SaveStyle.allCases)
    func editedWhilePlaying(_ style: SaveStyle) async throws {
        try await withTemporaryDirectory { dir in
            let url = try Self.setUp(Self.json([("hit", "low.wav")]), in: dir)
            let engine = try AudioEngine(output: .offline(sampleRate: Self.rate, channels: 2))
            defer { engine.shutdown() }
            let bank = try SoundBank(contentsOf: url, engine: engine)
            #expect(!bank.reloadsWhenChanged, "off while the engine serves no monitor")
            bank.reloadsWhenChanged = true
            let reports = Reports(bank)
            try await bank.preload()
            let hit = try #require(bank["hit"])
            hit.play()
            _ = try engine.render(frames: 2_400)

            try style.save(Data(Self.json([("hit", "high.wav")]).utf8), to: url)
            let rest = try engine.render(frames: 4_800)
            let during = Self.levels(rest, 0..<2_000)
            #expect(during.low > 0.1 && during.high < 0.01, "the play under way ends on its old sound: \(during)")
            #expect(reports.all == [.reloaded(events: ["hit"], removed: [])])

            hit.play()  // the game's reference follows the bank
            let next = Self.levels(try engine.render(frames: 4_800), 200..<4_400)
            #expect(next.high > 0.1 && next.low < 0.01, "the next play is the new sound: \(next)")
            #expect(hit.sounds.map(\.name) == ["high.wav"])
        }
    }

    @Test(
        "A broken edit keeps the old definitions and reports its line and column",
        arguments: [
            // A syntax error: the trailing comma before "}" on line 3.
            ("{\n  \"events\": [\n    {\"name\": \"hit\", \"sounds\": [\"sfx/high.wav\"],}\n  ]\n}\n", 3, 48),
            // A check that fails: an unknown mode, at its key on line 4.
            (
                "{\n  \"events\": [\n    {\"name\": \"hit\", \"sounds\": [\"sfx/high.wav\"],\n     \"mode\": \"randm\"}\n  ]\n}\n",
                4, 6
            ),
            // A sound that is not there: at its path on line 3.
            ("{\n  \"events\": [\n    {\"name\": \"hit\", \"sounds\": [\"sfx/gone.wav\"]}\n  ]\n}\n", 3, 32),
        ])
    func brokenEdit(_ edit: String, line: Int, column: Int) async throws {
        try await withTemporaryDirectory { dir in
            let url = try Self.setUp(Self.json([("hit", "low.wav")]), in: dir)
            let engine = try AudioEngine(output: .offline(sampleRate: Self.rate, channels: 2))
            defer { engine.shutdown() }
            let bank = try SoundBank(contentsOf: url, engine: engine)
            bank.reloadsWhenChanged = true
            let reports = Reports(bank)
            try await bank.preload()
            try SaveStyle.rename.save(Data(edit.utf8), to: url)
            _ = try engine.render(frames: 480)

            guard case .reloadFailed(let failure)? = reports.all.first else {
                Issue.record("no failure reported: \(reports.all)")
                return
            }
            #expect(reports.all.count == 1)
            #expect(failure.line == line && failure.column == column, "\(failure)")
            #expect(failure.description.hasPrefix("\(url.path):\(line):\(column): "), "\(failure)")
            #expect(!failure.description.contains("\n"))
            bank["hit"]?.play()
            let kept = Self.levels(try engine.render(frames: 4_800), 200..<4_400)
            #expect(kept.low > 0.1 && kept.high < 0.01, "the old definition plays: \(kept)")
        }
    }

    @Test("An event the edit removes refuses its plays; the others play on")
    func removedEvent() async throws {
        try await withTemporaryDirectory { dir in
            let url = try Self.setUp(Self.json([("hit", "low.wav"), ("other", "high.wav")]), in: dir)
            let engine = try AudioEngine(output: .offline(sampleRate: Self.rate, channels: 2))
            defer { engine.shutdown() }
            let bank = try SoundBank(contentsOf: url, engine: engine)
            bank.reloadsWhenChanged = true
            let reports = Reports(bank)
            try await bank.preload()
            let other = try #require(bank["other"])
            try SaveStyle.inPlace.save(Data(Self.json([("hit", "low.wav")]).utf8), to: url)
            _ = try engine.render(frames: 480)

            #expect(reports.all == [.reloaded(events: ["hit"], removed: ["other"])])
            #expect(bank["other"] == nil && !other.isPlayable && bank["hit"]?.isPlayable == true)
            #expect(other.play().isEmpty && other.play().isEmpty)
            let error = #expect(throws: BackbeatError.self) { try bank.event(named: "other") }
            #expect(error?.code == .unknownSoundEvent && error?.reason?.contains("removed") == true)
            let silent = try engine.render(frames: 4_800)
            #expect(SampleAnalysis.peak(silent) == 0, "a removed event plays nothing")

            // Put back, the same object plays again.
            try SaveStyle.rename.save(Data(Self.json([("hit", "low.wav"), ("other", "high.wav")]).utf8), to: url)
            _ = try engine.render(frames: 480)
            #expect(bank["other"] === other && other.isPlayable)
            #expect(other.play().count == 1)
        }
    }
}
