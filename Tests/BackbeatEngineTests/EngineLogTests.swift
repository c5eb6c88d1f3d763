import Backbeat
import BackbeatOpenAL
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Logging
import Testing

@testable import BackbeatEngine
@testable import BackbeatMusic

/// What the `backbeat` logger says: one clear line per problem, at most one
/// per problem every 5 s of engine time, and nothing at all when all is well.
@Suite("Engine log")
struct EngineLogTests {
    @Test("A sound whose file is missing logs one error naming the path, however often it is played")
    func missingSound() async throws {
        let engine = try AudioEngine(output: .offline())
        defer { engine.shutdown() }
        let log = LogRecorder()
        engine.logger = log.logger
        let sound = SoundEffect(contentsOf: URL(fileURLWithPath: "/no/such/dir/snare.wav"), engine: engine)
        let voice = sound.play()
        try await waitUntil { voice.isFinished && !log.entries.isEmpty }
        // Played again and again within 5 s of engine time: no new line.
        _ = try engine.render(frames: 48_000)
        let again = (0..<3).map { _ in sound.play() }
        try await waitUntil { again.allSatisfy { $0.isFinished } }
        _ = try engine.render(frames: 480)
        let lines = log.entries
        #expect(lines.count == 1, "\(lines.map(\.message))")
        #expect(lines.first?.level == .error)
        #expect(lines.first?.message.contains("/no/such/dir/snare.wav") == true, "\(lines.map(\.message))")
        #expect(lines.first?.message.contains("file not found") == true, "\(lines.map(\.message))")
        #expect(!(lines.first?.message.contains("\n") ?? true))
        // Past 5 s of engine time the next failure logs again, counting those it held back.
        _ = try engine.render(frames: 48_000 * 5)
        let late = sound.play()
        try await waitUntil { late.isFinished && log.entries.count == 2 }
        #expect(log.entries.last?.message.contains("more since the last line") == true, "\(log.entries.map(\.message))")
    }

    @Test("A song missing from a queue logs one error naming it; the queue plays on")
    func missingSong() throws {
        try withTemporaryDirectory { dir in
            let one = try Songs.constant(0.1, seconds: 0.3, in: dir, name: "one.wav")
            let missing = dir.appendingPathComponent("missing-song.ogg")
            let two = try Songs.constant(0.2, seconds: 0.3, in: dir, name: "two.wav")
            try withOfflineEngine { engine in
                let log = LogRecorder()
                engine.logger = log.logger
                let player = try QueuePlayer(engine: engine, items: [one, missing, two].map(PlayerItem.init(url:)))
                player.play()
                _ = try engine.render(frames: 48_000)
                let lines = log.entries
                #expect(lines.count == 1, "\(lines.map(\.message))")
                #expect(lines.first?.level == .error)
                #expect(lines.first?.message.contains(missing.path) == true, "\(lines.map(\.message))")
                #expect(lines.first?.metadata["problem"] == "itemFailed")
            }
        }
    }

    @Test("A thousand refused voices log one warning; 5 s of engine time later, one more that counts them")
    func refusedVoices() throws {
        try withOfflineEngine(maximumVoices: 4) { engine in
            let log = LogRecorder()
            engine.logger = log.logger
            let hum = try SoundEffect(buffer: TestSignal.constant(0.05, frames: 4_800), name: "hum", engine: engine)
            for _ in 0..<4 { hum.play(looping: .forever, priority: 5) }
            _ = try engine.render(frames: 480)
            let refused = (0..<1_000).map { _ in hum.play(priority: 0) }
            #expect(refused.allSatisfy { $0.isFinished })
            #expect(log.entries.count == 1, "\(log.entries.map(\.message))")
            #expect(log.entries.first?.level == .warning)
            #expect(log.entries.first?.message.contains("\"hum\" refused") == true, "\(log.entries.map(\.message))")
            _ = try engine.render(frames: 48_000 * 5)
            hum.play(priority: 0)
            #expect(log.entries.count == 2)
            #expect(
                log.entries.last?.message.contains("(and 999 more since the last line about it)") == true,
                "\(log.entries.map(\.message))")
        }
    }

    @Test("A music stream that runs dry logs one warning")
    func underrun() throws {
        try withTemporaryDirectory { dir in
            let song = try Songs.constant(0.3, seconds: 2, in: dir, name: "song.wav")
            try withOfflineEngine { engine in
                let log = LogRecorder()
                engine.logger = log.logger
                let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: song)])
                // As on a real-time output whose decoder falls behind (AudioStreamTests).
                engine.withLock {
                    player.stream.decodesInline = false
                    player.stream.feed.holdsBackground = true
                }
                player.play()
                for _ in 0..<3 { player.stream.feed.decodeStep() }
                _ = try engine.render(frames: 24_000)
                #expect(log.entries.isEmpty, "running dry is not yet an underrun: \(log.entries.map(\.message))")
                player.stream.feed.decodeStep()
                _ = try engine.render(frames: 4_800)
                #expect(player.underrunCount == 1)
                let lines = log.entries
                #expect(lines.count == 1, "\(lines.map(\.message))")
                #expect(lines.first?.level == .warning)
                #expect(lines.first?.metadata["problem"] == "underrun")
            }
        }
    }

    @Test("Losing the output device logs a warning naming it")
    func deviceLost() throws {
        try withOfflineEngine { engine in
            let log = LogRecorder()
            engine.logger = log.logger
            let name = engine.withLock { engine.device.name }
            engine.simulateDeviceLoss()
            let lines = log.entries.filter { $0.metadata["problem"] == "outputLost" }
            #expect(lines.count == 1, "\(log.entries.map(\.message))")
            #expect(lines.first?.level == .warning)
            #expect(lines.first?.message.contains("\"\(name)\" lost") == true, "\(log.entries.map(\.message))")
        }
    }

    @Test("A scene playing as it should logs nothing, at any level")
    func quietWhenAllIsWell() async throws {
        try await withTemporaryDirectoryAsync { dir in
            let url = dir.appendingPathComponent("beep.wav")
            try writeWAV(TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.2)), to: url)
            let songs = try [0.1, 0.2].enumerated().map {
                try Songs.constant(Float($0.element), seconds: 0.5, in: dir, name: "song\($0.offset).wav")
            }
            let engine = try AudioEngine(output: .offline())
            defer { engine.shutdown() }
            let log = LogRecorder()
            engine.logger = log.logger
            let beep = SoundEffect(contentsOf: url, engine: engine)
            try await beep.preload()
            let tone = try SoundEffect(
                buffer: TestSignal.sine(frequency: 220, duration: MediaTime(seconds: 0.5)), name: "tone", engine: engine
            )
            let player = try QueuePlayer(engine: engine, items: songs.map(PlayerItem.init(url:)))
            player.play()
            tone.play(looping: .forever)
            for step in 0..<20 {
                beep.play(volume: 0.5)
                if step == 10 { engine.musicBus.fade(to: 0.5, duration: MediaTime(seconds: 0.2)) }
                _ = try engine.render(frames: 4_800)
            }
            #expect(SampleAnalysis.rms(try engine.render(frames: 4_800)) > 0.01)
            #expect(log.entries.isEmpty, "\(log.entries.map(\.message))")
        }
    }
}

/// Polls `condition` (a background load's result), yielding between checks; fails after 10 s.
private func waitUntil(_ condition: () -> Bool) async throws {
    for _ in 0..<10_000 {
        if condition() { return }
        try await Task.sleep(nanoseconds: 1_000_000)
    }
    Issue.record("condition never became true")
}
