import Backbeat
import BackbeatCapture
import BackbeatReplay
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// Banks and sounds edited while a captured game plays, followed through the
/// engine's file watch: the replay, run after the files changed again, is
/// the original render sample for sample.
@Suite("Reload capture: banks and sounds reloaded while capturing, replayed sample for sample")
struct ReloadCaptureTests {
    static let rate = 48_000
    static let chunk = 4_800

    /// Writes a mono tone of `frequency` lasting `seconds`.
    static func writeTone(_ frequency: Double, seconds: Double, to url: URL) throws {
        let tone = TestSignal.sine(frequency: frequency, duration: MediaTime(seconds: seconds))
        try Songs.write(tone.interleavedFloats, to: url, channels: 1)
    }

    /// Saves as an editor does: a temporary file renamed over the original.
    static func save(_ data: Data, to url: URL) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).swp")
        try data.write(to: temporary)
        #expect(rename(temporary.path, url.path) == 0)
    }

    /// A bank of one event, `hit`, playing `sfx/<file>`.
    static func bank(_ file: String) -> Data {
        Data(#"{"events": [{"name": "hit", "sounds": ["sfx/\#(file)"]}]}"#.utf8)
    }

    /// The left channel's level at `frequency` in chunk `index` of `samples`.
    static func level(_ samples: [Float], chunk index: Int, at frequency: Double) -> Float {
        let left = SampleAnalysis.channel(samples, 0, of: 2)
        let frames = Array(left[(index * chunk + 200)..<((index + 1) * chunk - 200)])
        return SampleAnalysis.level(of: frames, atFrequency: frequency, sampleRate: rate)
    }

    /// Replays `capture` and returns its samples.
    static func replay(_ capture: URL, in dir: URL, warnings: WarningBox = WarningBox()) throws -> [Float] {
        let wav = dir.appendingPathComponent("replay-\(UUID().uuidString).wav")
        let replayer = try Replayer(url: capture)
        replayer.warn = { warnings.append($0) }
        let result = try replayer.run(writingTo: wav)
        #expect(result.ended && result.damage == nil)
        return try SampleAnalysis.samples(contentsOf: wav).samples
    }

    /// A copy of `capture` without its reload records.
    static func withoutReloads(_ capture: URL, in dir: URL) throws -> URL {
        let cut = dir.appendingPathComponent("cut-\(UUID().uuidString).bbcap")
        let writer = try CaptureFileWriter(url: cut)
        for record in try CaptureFileReader(url: capture).readAll()
        where !CaptureKind.reloadRange.contains(record.kind.rawValue) {
            writer.append(record.kind, frame: record.frame) { encoder in
                for byte in record.payload { encoder.appendFixed(byte) }
            }
        }
        try writer.close()
        return cut
    }

    /// A copy of `capture` whose reload records keep fingerprints only, as
    /// for files over 1 MiB.
    static func withoutKeptBytes(_ capture: URL, in dir: URL) throws -> URL {
        let thin = dir.appendingPathComponent("thin-\(UUID().uuidString).bbcap")
        let writer = try CaptureFileWriter(url: thin)
        for record in try CaptureFileReader(url: capture).readAll() {
            var payload = record.payload
            if CaptureKind.reloadRange.contains(record.kind.rawValue) {
                var decoder = record.decoder
                var encoder = CaptureEncoder()
                if record.kind == .reloadSound {
                    let target = try decoder.fixed(UInt8.self)
                    encoder.appendFixed(target)
                    encoder.append(try decoder.uint32())
                    if target == 1 { encoder.append(try decoder.string()) }
                } else {
                    encoder.append(try decoder.uint32())
                }
                encoder.append(try decoder.bool())
                var file = try CapturedFile(from: &decoder)
                file.bytes = nil
                file.encode(into: &encoder)
                payload = encoder.bytes[...]
            }
            writer.append(record.kind, frame: record.frame) { encoder in
                for byte in payload { encoder.appendFixed(byte) }
            }
        }
        try writer.close()
        return thin
    }

    /// Collects a bank's reports.
    final class Reports: Sendable {
        let events = LockedValueBox<[SoundBank.Event]>([])
        init(_ bank: SoundBank) { bank.observe { [events] event in events.withLockedValue { $0.append(event) } } }
        var all: [SoundBank.Event] { events.withLockedValue { $0 } }
    }

    /// A bank whose `hit` plays a 400 Hz tone, saved to play 1,000 Hz, then
    /// 700 Hz (with a play in the same frame as that save), then broken.
    /// Each chunk is 0.1 s; a play starts at the top of chunks 0, 2, 3, 4 and 6.
    static func bankScene(in dir: URL, capture: URL?) throws -> (samples: [Float], reports: [SoundBank.Event]) {
        let sfx = dir.appendingPathComponent("sfx")
        try FileManager.default.createDirectory(at: sfx, withIntermediateDirectories: true)
        for (name, hz) in [("low.wav", 400.0), ("high.wav", 1_000), ("mid.wav", 700)] {
            try writeTone(hz, seconds: 0.09, to: sfx.appendingPathComponent(name))
        }
        let url = dir.appendingPathComponent("sfx.bank.json")
        try bank("low.wav").write(to: url)
        let engine = try AudioEngine(output: .offline(sampleRate: rate, channels: 2))
        defer { engine.shutdown() }
        let session = try capture.map { try engine.startCapture(to: $0) }
        let bank = try SoundBank(contentsOf: url, engine: engine)
        bank.reloadsWhenChanged = true
        let reports = Reports(bank)
        let hit = try #require(bank["hit"])
        var out: [Float] = []
        hit.play()
        out += try engine.render(frames: chunk)
        try save(Self.bank("high.wav"), to: url)
        out += try engine.render(frames: chunk)  // reloaded at its first step
        hit.play()
        out += try engine.render(frames: chunk)
        try save(Self.bank("mid.wav"), to: url)
        hit.play()  // chosen before the reload: 1,000 Hz still
        out += try engine.render(frames: chunk)
        hit.play()
        out += try engine.render(frames: chunk)
        try save(Data(#"{"events": [{"name": "hit", "sounds": ["sfx/high.wav"],}]}"#.utf8), to: url)
        out += try engine.render(frames: chunk)  // does not parse: the old definition stays
        hit.play()
        out += try engine.render(frames: chunk)
        try session?.stop()
        return (out, reports.all)
    }

    @Test("A bank reloaded while capturing replays sample for sample, after its file changed again")
    func bankReloads() throws {
        try withTemporaryDirectory { dir in
            let capture = dir.appendingPathComponent("bank.bbcap")
            let (original, reports) = try Self.bankScene(in: dir, capture: capture)
            #expect(reports.count == 3)
            #expect(reports.prefix(2).allSatisfy { $0 == .reloaded(events: ["hit"], removed: []) }, "\(reports)")
            guard case .reloadFailed? = reports.last else {
                Issue.record("the broken edit was not reported: \(reports)")
                return
            }
            for (chunk, hz) in [(0, 400.0), (2, 1_000), (3, 1_000), (4, 700), (6, 700)] {
                #expect(Self.level(original, chunk: chunk, at: hz) > 0.1, "chunk \(chunk) plays \(hz) Hz")
            }
            let records = try CaptureFileReader(url: capture).readAll()
            #expect(records.filter { $0.kind == .reloadBank }.count == 2, "the failed reload records nothing")

            let plain = try withTemporaryDirectory { try Self.bankScene(in: $0, capture: nil).samples }
            #expect(firstDifference(plain, original) == nil, "capturing changes nothing heard")

            // The bank file now holds the broken edit; the replay needs none of its versions on disk.
            let warnings = WarningBox()
            let replayed = try Self.replay(capture, in: dir, warnings: warnings)
            #expect(firstDifference(replayed, original) == nil)
            #expect(warnings.lines.isEmpty, "\(warnings.lines)")

            let cut = try Self.replay(try Self.withoutReloads(capture, in: dir), in: dir)
            #expect(cut.count == original.count)
            #expect(firstDifference(cut, original) != nil, "without its reload records the replay differs")

            // Reloads kept as fingerprints read the file as it is now (the broken
            // edit): each says it changed and does not load, and the replay goes on.
            let thinWarnings = WarningBox()
            let thin = try Self.replay(try Self.withoutKeptBytes(capture, in: dir), in: dir, warnings: thinWarnings)
            #expect(thin.count == original.count)
            #expect(thinWarnings.lines.count == 4, "\(thinWarnings.lines)")
            #expect(thinWarnings.lines.allSatisfy { $0.contains(dir.appendingPathComponent("sfx.bank.json").path) })
        }
    }

    /// A sound following its file: a 400 Hz tone of 0.15 s, replaced by
    /// 1,000 Hz while a voice plays it (the voice ends on 400 Hz), then by
    /// 700 Hz at the top of chunk 4, where two plays start: one called then,
    /// and one scheduled earlier that the update step at that frame begins,
    /// before the reload that step's file watch starts takes effect (both
    /// end on 1,000 Hz). Chunks of 0.1 s; plays begin at the top of chunks
    /// 0, 2, 4 and 6.
    static func soundScene(in dir: URL, capture: URL?) throws -> [Float] {
        let url = dir.appendingPathComponent("tone.wav")
        try writeTone(400, seconds: 0.15, to: url)
        let engine = try AudioEngine(output: .offline(sampleRate: rate, channels: 2))
        defer { engine.shutdown() }
        let session = try capture.map { try engine.startCapture(to: $0) }
        let sound = SoundEffect(contentsOf: url, engine: engine)
        sound.reloadsWhenChanged = true
        var out: [Float] = []
        sound.play()
        out += try engine.render(frames: chunk)
        let swap = dir.appendingPathComponent("new.wav")
        try writeTone(1_000, seconds: 0.15, to: swap)
        #expect(rename(swap.path, url.path) == 0)
        out += try engine.render(frames: chunk)  // reloaded at its first step; the voice ends on 400 Hz
        sound.play()
        out += try engine.render(frames: chunk)
        // Begun by the step at the top of chunk 4 (two periods ahead of its frame).
        let lead = 2 * engine.updateInterval
        sound.play(at: MediaTime(frames: Int64(4 * chunk + lead), sampleRate: rate), volume: 0.5)
        out += try engine.render(frames: chunk)
        try writeTone(700, seconds: 0.15, to: swap)
        #expect(rename(swap.path, url.path) == 0)
        sound.play(volume: 0.5)
        out += try engine.render(frames: 2 * chunk)
        sound.play()
        out += try engine.render(frames: 2 * chunk)
        try session?.stop()
        return out
    }

    @Test("A sound file replaced while capturing replays sample for sample, after it changed again")
    func soundReloads() throws {
        try withTemporaryDirectory { dir in
            let capture = dir.appendingPathComponent("sound.bbcap")
            let original = try Self.soundScene(in: dir, capture: capture)
            for (chunk, hz) in [(0, 400.0), (2, 1_000), (4, 1_000), (6, 700)] {
                #expect(Self.level(original, chunk: chunk, at: hz) > 0.1, "chunk \(chunk) plays \(hz) Hz")
            }
            #expect(Self.level(original, chunk: 4, at: 700) < 0.01, "both plays in chunk 4 end on 1,000 Hz")
            let records = try CaptureFileReader(url: capture).readAll()
            #expect(records.filter { $0.kind == .reloadSound }.count == 2)

            let plain = try withTemporaryDirectory { try Self.soundScene(in: $0, capture: nil) }
            #expect(firstDifference(plain, original) == nil, "capturing changes nothing heard")

            // The file now holds the 700 Hz tone: the capture kept the others.
            let warnings = WarningBox()
            let replayed = try Self.replay(capture, in: dir, warnings: warnings)
            #expect(firstDifference(replayed, original) == nil)
            #expect(warnings.lines.isEmpty, "\(warnings.lines)")

            let cut = try Self.replay(try Self.withoutReloads(capture, in: dir), in: dir)
            #expect(cut.count == original.count)
            #expect(firstDifference(cut, original) != nil, "without its reload records the replay differs")
        }
    }

    @Test("A reloaded sound the capture did not keep is read from its file, with one warning when it changed")
    func soundNotKeptIsReadWithAWarning() throws {
        try withTemporaryDirectory { dir in
            let capture = dir.appendingPathComponent("sound.bbcap")
            let original = try Self.soundScene(in: dir, capture: capture)
            // As if the capture held fingerprints only (a file over 1 MiB).
            let thin = try Self.withoutKeptBytes(capture, in: dir)
            let warnings = WarningBox()
            let replayed = try Self.replay(thin, in: dir, warnings: warnings)
            #expect(replayed.count == original.count)
            // The last reload's file is on disk as it was: that one is exact, the first is not.
            #expect(warnings.lines.count == 1, "\(warnings.lines)")
            #expect(warnings.lines.first?.contains("tone.wav") == true)
            #expect(Self.level(replayed, chunk: 2, at: 700) > 0.1, "the first reload hears the file as it is now")
        }
    }
}
