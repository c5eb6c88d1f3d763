import Backbeat
import BackbeatEngine
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Synchronization
import Testing

/// Loads in the background on an offline output: a render waits for what it
/// needs, so the result never depends on the wall clock.
@Suite("SoundCache")
struct SoundCacheTests {
    static let rate = 48_000

    /// A mono tone, phase π/4 so that its first frame is audible.
    static func tone(_ hz: Double, seconds: Double, amplitude: Float = 0.5) -> [Float] {
        (0..<Int(seconds * Double(rate))).map {
            amplitude * Float(sin(2 * Double.pi * hz * Double($0) / Double(rate) + .pi / 4))
        }
    }

    /// The scene's files: two effects, a bank with one event, a song.
    struct Files {
        let coin: URL
        let laser: URL
        let bank: URL
        let song: URL
    }

    static func files(in dir: URL) throws -> Files {
        let sfx = dir.appendingPathComponent("sfx")
        try FileManager.default.createDirectory(at: sfx, withIntermediateDirectories: true)
        let coin = dir.appendingPathComponent("coin.wav")
        try Songs.write(tone(880, seconds: 0.1), to: coin, channels: 1)
        let laser = dir.appendingPathComponent("laser.wav")
        try Songs.write(tone(1_320, seconds: 0.1), to: laser, channels: 1)
        try Songs.write(tone(440, seconds: 0.1), to: sfx.appendingPathComponent("jump.wav"), channels: 1)
        let bank = dir.appendingPathComponent("bank.json")
        try Data(#"{"version": 1, "events": [{"name": "jump", "sounds": ["sfx/jump.wav"]}]}"#.utf8).write(to: bank)
        let song = dir.appendingPathComponent("song.wav")
        try Songs.write(Songs.sineFrames(0..<(rate / 5), frequency: 330), to: song)
        return Files(coin: coin, laser: laser, bank: bank, song: song)
    }

    /// How one render of the scene treats the wall clock.
    enum Disturbance: CaseIterable {
        case none, sleepBeforeRendering, busyOtherCore, oneCallPerSpan
    }

    /// The scene, nothing preloaded: a coin and a bank event played at engine
    /// time 0 and scheduled at 0.3 s and 0.6 s, a song started at 0.9 s, a
    /// new sound and the event played at 1.2 s. Returns 1.5 s of stereo.
    static func renderScene(_ files: Files, _ disturbance: Disturbance) throws -> (samples: [Float], latency: Int) {
        let engine = try AudioEngine(output: .offline(sampleRate: rate, channels: 2))
        defer { engine.shutdown() }
        let spinning = Atomic<Bool>(disturbance == .busyOtherCore)
        defer { spinning.store(false, ordering: .relaxed) }
        if disturbance == .busyOtherCore {
            Thread.detachNewThread {
                var x: UInt64 = 1
                while spinning.load(ordering: .relaxed) { x = x &* 6_364_136_223_846_793_005 &+ 1 }
                if x == 0 { print(x) }
            }
        }
        var out: [Float] = []
        func render(seconds: Double) throws {
            if disturbance == .sleepBeforeRendering { Thread.sleep(forTimeInterval: 0.05) }
            let frames = Int(seconds * Double(rate))
            if disturbance == .oneCallPerSpan {
                out += try engine.render(frames: frames)
                return
            }
            var done = 0
            while done < frames {
                let chunk = min(512, frames - done)
                out += try engine.render(frames: chunk)
                done += chunk
            }
        }
        let coin = SoundEffect(contentsOf: files.coin, engine: engine)
        let bank = try SoundBank(contentsOf: files.bank, engine: engine)
        let jump = try #require(bank["jump"])
        coin.play()
        jump.play()
        coin.play(at: MediaTime(seconds: 0.3))
        jump.play(at: MediaTime(seconds: 0.6))
        let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: files.song)])
        try render(seconds: 0.9)
        player.play()
        try render(seconds: 0.3)
        SoundEffect(contentsOf: files.laser, engine: engine).play()
        jump.play()
        try render(seconds: 0.3)
        return (out, Int(engine.latencyFrames))
    }

    /// The first frame in `range` with a sample above the noise floor.
    static func onset(_ samples: [Float], in range: Range<Int>) -> Int? {
        range.first { abs(samples[2 * $0]) > 1e-4 || abs(samples[2 * $0 + 1]) > 1e-4 }
    }

    @Test("Sounds, banks and songs played with no preload render the same bits every time, on time")
    func offlineRenderIsRepeatable() throws {
        try withTemporaryDirectory { dir in
            let files = try Self.files(in: dir)
            let (reference, latency) = try Self.renderScene(files, .none)
            #expect(reference.count == 72_000 * 2)
            // Heard from the frame each was played at (now: after the limiter's lookahead).
            #expect(Self.onset(reference, in: 0..<9_600) == latency)
            #expect(Self.onset(reference, in: 9_600..<24_000) == 14_400)
            #expect(Self.onset(reference, in: 24_000..<38_400) == 28_800)
            #expect(Self.onset(reference, in: 38_400..<55_200) == 43_200 + latency)
            #expect(Self.onset(reference, in: 55_200..<72_000) == 57_600 + latency)
            for run in 1..<20 {
                let disturbance = Disturbance.allCases[run % Disturbance.allCases.count]
                let (samples, _) = try Self.renderScene(files, disturbance)
                let firstDifference =
                    samples.count == reference.count ? samples.indices.first { samples[$0] != reference[$0] } : 0
                #expect(
                    firstDifference == nil, "run \(run), \(disturbance): frame \((firstDifference ?? 0) / 2) differs")
            }
        }
    }

    /// Bytes that are not there until `open` is called: a loader stuck on a slow disk.
    final class HeldSource: AudioByteSource {
        let bytes: Data
        let gate = DispatchSemaphore(value: 0)
        init(_ bytes: Data) { self.bytes = bytes }
        var size: Int64 { Int64(bytes.count) }
        func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
            gate.wait()
            gate.signal()
            return try bytes.read(into: buffer, at: offset)
        }
        func open() { gate.signal() }
    }

    @Test("A load that fails ends the wait as a refused voice; a stuck one is given up after the limit")
    func failedAndStuckLoads() async throws {
        try await withTemporaryDirectory { dir in
            let files = try Self.files(in: dir)
            let engine = try AudioEngine(output: .offline(sampleRate: Self.rate, channels: 2))
            defer { engine.shutdown() }
            let recorder = EventRecorder(engine)
            // A missing file: the render waits for the failure, which refuses the voice with its typed error.
            let missing = SoundEffect(contentsOf: dir.appendingPathComponent("missing.wav"), engine: engine)
            let voice = missing.play()
            _ = try engine.render(frames: 480)
            let refusals = recorder.events.compactMap { event -> BackbeatError? in
                guard case .voiceRefused(let id, _, .loadFailed(let error)) = event, id == voice.id else { return nil }
                return error
            }
            #expect(refusals.count == 1 && refusals.first?.code == .fileNotFound, "\(recorder.events)")

            // Stuck bytes: the render goes on without them after the limit, silent.
            engine.backgroundLoads.limit = .milliseconds(100)
            let source = HeldSource(try Data(contentsOf: files.coin))
            let stuck = SoundEffect(asset: AudioAsset(source: source, name: "stuck.wav"), engine: engine)
            stuck.play()
            let silent = try engine.render(frames: 4_800)
            #expect(SampleAnalysis.peak(silent) == 0)
            // Once the bytes come, the sound loads and starts late, as on a device.
            source.open()
            try await stuck.preload()
            let late = try engine.render(frames: 4_800)
            #expect(SampleAnalysis.peak(late) > 0.1)
        }
    }
}
