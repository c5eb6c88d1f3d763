import Backbeat
import BackbeatCapture
import BackbeatEffects
import BackbeatReplay
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatAcoustics

/// A session that uses acoustics, captured and replayed: the replay has
/// only the simulation's results (no level, no rays) and must render the
/// same samples.
@Suite struct AcousticsCaptureTests {
    /// The new kinds, which carry what the simulation set.
    static let acousticKinds: [CaptureKind] = [
        .effectsAcousticFilters, .effectsAcousticGains, .effectsRoomReverbs, .effectsAcousticVoice,
    ]

    /// A folder of its own for one test's files.
    final class Folder {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent(
                "acoustics-capture-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        func file(_ name: String) -> URL { url.appendingPathComponent(name) }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    /// 0.5 s of noise from a fixed linear congruential sequence (a loop).
    static func noise(on engine: AudioEngine, seed: UInt32) throws -> SoundEffect {
        var state = seed
        let samples = (0..<24_000).map { _ -> Float in
            state = state &* 1_664_525 &+ 1_013_904_223
            return 0.9 * (Float(state >> 8) / Float(1 << 24) * 2 - 1)
        }
        let buffer = try PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: samples)
        return try SoundEffect(buffer: buffer, name: "noise\(seed)", engine: engine)
    }

    /// Renders 1.8 s of the two-room level (``AcousticSceneTests/twoRooms()``)
    /// on an offline engine, capturing it to `capture`: a looping voice in
    /// room b behind the wall, sending to its room's reverb; the listener
    /// walks in room a; the door opens, then closes; a second, unplaced voice
    /// is set by the game itself (`Voice.apply(_:over:)`) from the path to a
    /// point behind the wall.
    /// The simulation updates every 25 ms chunk, between renders.
    static func render(capture: URL) throws -> [Float] {
        let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
        defer { engine.shutdown() }
        let session = try engine.startCapture(to: capture)
        let scene = try AcousticSceneTests.twoRooms()
        engine.listenerPosition = Audio3DPoint(x: -1.5, y: 1, z: 1)
        let behind = try noise(on: engine, seed: 12_345).play(
            at: nil, volume: 1, position: Audio3DPoint(x: 1.5, y: 1, z: 2), looping: .forever)
        behind.reverbBlend = 1
        // Unplaced, so the simulation leaves it to the game.
        let near = try noise(on: engine, seed: 777).play(at: nil, volume: 0.3, looping: .forever)
        let simulation = AcousticSimulation(engine: engine, scene: scene)
        var samples: [Float] = []
        for step in 0..<72 {
            if step == 16 { try scene.setOpenness(1, ofPortal: "door") }
            if step == 48 { try scene.setOpenness(0, ofPortal: "door") }
            let t = Float(step) / 72
            engine.moveListener(to: Audio3DPoint(x: -1.5 - t, y: 1, z: 1 + 2 * t))
            simulation.update()
            if step % 8 == 0 {
                let l = engine.listenerPosition
                near.apply(scene.path(from: [l.x, l.y, l.z], to: [2, 1, -2]), over: MediaTime(seconds: 0.03))
            }
            samples += try engine.render(frames: 1_200)
        }
        try session.stop()
        return samples
    }

    /// Replays `capture` and returns its samples.
    static func replay(_ capture: URL, in folder: Folder) throws -> [Float] {
        let output = folder.file("replay-\(UUID().uuidString).wav")
        let replayer = try Replayer(url: capture)
        _ = try replayer.run(writingTo: output)
        return try SampleAnalysis.samples(contentsOf: output).samples
    }

    /// Where two renders first differ (nil: the same bits).
    static func firstDifference(_ a: [Float], _ b: [Float]) -> String? {
        if a.count != b.count { return "lengths \(a.count) and \(b.count)" }
        for i in a.indices where a[i].bitPattern != b[i].bitPattern {
            return "sample \(i) (frame \(i / 2)): \(a[i]) vs \(b[i])"
        }
        return nil
    }

    /// Copies `capture` to `cut` without the records of `dropped`.
    static func copy(_ capture: URL, to cut: URL, dropping dropped: Set<CaptureKind>) throws {
        let writer = try CaptureFileWriter(url: cut)
        for record in try CaptureFileReader(url: capture).readAll() where !dropped.contains(record.kind) {
            writer.append(record.kind, frame: record.frame) { encoder in
                for byte in record.payload { encoder.appendFixed(byte) }
            }
        }
        try writer.close()
    }

    @Test func aReplayOfAnAcousticsSessionIsTheLiveRenderBitForBit() throws {
        let folder = try Folder()
        let capture = folder.file("acoustics.bbcap")
        let live = try Self.render(capture: capture)
        // Heard: the voice behind the wall, loudest while the door is open.
        let peak = live.map(abs).max() ?? 0
        #expect(peak > 0.01, "peak \(peak)")
        let kinds = Set(try CaptureFileReader(url: capture).readAll().map(\.kind))
        for kind in Self.acousticKinds { #expect(kinds.contains(kind), "no record of kind \(kind)") }
        let replayed = try Self.replay(capture, in: folder)
        #expect(Self.firstDifference(replayed, live) == nil)
    }

    /// Without the simulation's records the replay is not the live render:
    /// each of these kinds carries something that is heard.
    @Test(arguments: [
        [CaptureKind.effectsAcousticFilters], [.effectsRoomReverbs], [.effectsAcousticVoice], Self.acousticKinds,
    ])
    func aReplayWithoutTheAcousticsRecordsDiffers(_ dropped: [CaptureKind]) throws {
        let folder = try Folder()
        let capture = folder.file("acoustics.bbcap")
        let live = try Self.render(capture: capture)
        let cut = folder.file("cut.bbcap")
        try Self.copy(capture, to: cut, dropping: Set(dropped))
        let replayed = try Self.replay(cut, in: folder)
        #expect(replayed.count == live.count)
        #expect(Self.firstDifference(replayed, live) != nil)
    }
}

/// The size of a capture of a session that uses acoustics, and what
/// capturing costs it: a figure, not a check, so it runs only when asked
/// (`BACKBEAT_MEASURE_ACOUSTICS_CAPTURE=1`; it renders a minute of 256 voices twice).
@Suite struct AcousticsCaptureFigures {
    /// 256 looping voices spread over both rooms of the two-room level, the
    /// listener walking through room a, the door opening and closing every
    /// 2 s, the simulation updated 60 times a second, for `seconds`; captured to `capture`
    /// when given. Returns the seconds the loop took.
    static func session(capture: URL?, seconds: Int = 60) throws -> Double {
        let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
        defer { engine.shutdown() }
        let session = try capture.map { try engine.startCapture(to: $0) }
        let scene = try AcousticSceneTests.twoRooms()
        let sound = try AcousticsCaptureTests.noise(on: engine, seed: 5)
        var state: UInt32 = 2_024
        func unit() -> Float {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(state >> 8) / Float(1 << 24)
        }
        for _ in 0..<256 {
            let point = Audio3DPoint(x: unit() * 9.6 - 4.8, y: 0.5 + unit() * 2, z: unit() * 9.6 - 4.8)
            sound.play(at: nil, volume: 0.05, position: point, looping: .forever).reverbBlend = 0.5
        }
        let simulation = AcousticSimulation(engine: engine, scene: scene)
        let updates = seconds * 60
        let start = ContinuousClock.now
        for update in 0..<updates {
            if update % 120 == 0 { try scene.setOpenness(update % 240 == 0 ? 1 : 0, ofPortal: "door") }
            // Back and forth along 8.5 m of room a, at about 1 m/s.
            let phase = (Float(update) / 60 / 16).truncatingRemainder(dividingBy: 1)
            let t = phase < 0.5 ? phase * 2 : 2 - phase * 2
            engine.moveListener(to: Audio3DPoint(x: -4 + 3 * t, y: 1, z: -4 + 8 * t))
            simulation.update()
            _ = try engine.render(frames: 800)
        }
        let elapsed = ContinuousClock.now - start
        try session?.stop()
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["BACKBEAT_MEASURE_ACOUSTICS_CAPTURE"] != nil))
    func bytesPerMinuteOf256VoicesWithAcoustics() throws {
        let folder = try AcousticsCaptureTests.Folder()
        let capture = folder.file("256.bbcap")
        let off = try Self.session(capture: nil)
        let on = try Self.session(capture: capture)
        let size = try FileManager.default.attributesOfItem(atPath: capture.path)[.size] as? Int ?? 0
        var byKind: [CaptureKind: (count: Int, bytes: Int)] = [:]
        for record in try CaptureFileReader(url: capture).readAll() {
            byKind[record.kind, default: (0, 0)].count += 1
            byKind[record.kind, default: (0, 0)].bytes += record.payload.count
        }
        print(
            "acoustics capture: \(size) bytes per minute; loop \(on) s with capture, \(off) s without"
        )
        for (kind, entry) in byKind.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            print("  kind \(kind): \(entry.count) records, \(entry.bytes) payload bytes")
        }
        #expect(size > 0)
    }
}
