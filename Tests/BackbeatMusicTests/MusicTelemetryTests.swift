import Backbeat
import BackbeatTelemetry
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatEngine
@testable import BackbeatMusic

@Suite("Music telemetry")
struct MusicTelemetryTests {
    /// Three seconds of a full-scale stereo sine.
    private func fullScaleSine(in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent("sine.wav")
        try Songs.write(Songs.sineFrames(0..<144_000, amplitude: 1), to: url)
        return url
    }

    private func decibels(_ samples: [Float]) -> Double { 20 * log10(Double(SampleAnalysis.rms(samples))) }

    /// The music bus's row of a snapshot covering the second rendered after
    /// half a second of `song` on a music bus at `volume`, and that second's
    /// output.
    private func measure(_ song: URL, musicVolume: Float) throws -> (bus: TelemetrySnapshot.Bus, out: [Float]) {
        try withOfflineEngine { engine in
            engine.withLock { engine.beginMonitoringLocked() }
            engine.musicBus.volume = musicVolume
            let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: song)])
            player.play()
            _ = try engine.render(frames: 24_000)
            _ = engine.withLock { engine.telemetrySnapshotLocked() }
            let out = try engine.render(frames: 48_000)
            let snapshot = engine.withLock { engine.telemetrySnapshotLocked() }
            return (try #require(snapshot.buses.first { $0.name == "music" }), out)
        }
    }

    @Test("A music bus at -12 dB reads the rendered output's RMS within 0.5 dB, 12 dB below the same at 0 dB")
    func busLevelMatchesTheRender() throws {
        try withTemporaryDirectory { dir in
            let song = try fullScaleSine(in: dir)
            let quiet = try measure(song, musicVolume: 0.2512)
            let full = try measure(song, musicVolume: 1)
            #expect(abs(quiet.bus.rmsDB - decibels(quiet.out)) < 0.5, "\(quiet.bus.rmsDB) vs \(decibels(quiet.out))")
            #expect(abs(full.bus.rmsDB - quiet.bus.rmsDB - 12) < 0.5, "\(full.bus.rmsDB) vs \(quiet.bus.rmsDB)")
            #expect(abs(quiet.bus.rmsDB - (-15.01)) < 0.5, "a full-scale sine is -3 dBFS RMS, then -12 dB")
            #expect(abs(quiet.bus.peakDB - (-12)) < 0.5)
        }
    }

    @Test("The master bus's level folds in its children's; a silent bus reads -120 dB")
    func levelsFoldIntoParents() throws {
        try withTemporaryDirectory { dir in
            let song = try fullScaleSine(in: dir)
            try withOfflineEngine { engine in
                engine.withLock { engine.beginMonitoringLocked() }
                let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: song)])
                player.volume = 0.5
                player.play()
                _ = try engine.render(frames: 24_000)
                _ = engine.withLock { engine.telemetrySnapshotLocked() }
                let out = try engine.render(frames: 24_000)
                let snapshot = engine.withLock { engine.telemetrySnapshotLocked() }
                let rows = Dictionary(uniqueKeysWithValues: snapshot.buses.map { ($0.name, $0) })
                #expect(rows["master"]?.rmsDB == rows["music"]?.rmsDB)
                #expect(rows["effects"]?.rmsDB == -120 && rows["effects"]?.peakDB == -120)
                #expect(abs((rows["music"]?.rmsDB ?? 0) - decibels(out)) < 0.5, "the player's volume counts")
            }
        }
    }

    @Test("A queue player shows its kind, state, item, time, volume and bus; its stream counts as a source")
    func queuePlayerLine() throws {
        try withTemporaryDirectory { dir in
            let song = try fullScaleSine(in: dir)
            try withOfflineEngine { engine in
                engine.withLock { engine.beginMonitoringLocked() }
                let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: song)])
                player.volume = 0.75
                var line = try #require(engine.withLock { engine.telemetrySnapshotLocked() }.music.first)
                #expect(line.kind == "queue" && line.state == "paused" && line.item == "sine.wav")
                player.play()
                _ = try engine.render(frames: 48_000)
                let snapshot = engine.withLock { engine.telemetrySnapshotLocked() }
                line = try #require(snapshot.music.first)
                #expect(line.state == "playing" && line.volume == 0.75 && line.bus == "music")
                #expect(abs(line.time - 1) < 0.1, "about a second in: \(line.time)")
                #expect(snapshot.engine.sourcesInUse == 1)
            }
        }
    }

    @Test("An adaptive player shows the section heard; the level is there without the game's metering")
    func adaptivePlayerLine() throws {
        try withTemporaryDirectory { dir in
            let song = try fullScaleSine(in: dir)
            try withOfflineEngine { engine in
                engine.withLock { engine.beginMonitoringLocked() }
                let music = try AdaptiveMusicPlayer(
                    engine: engine, sections: [MusicSection(name: "calm", asset: AudioAsset(url: song))])
                try music.play(section: "calm")
                _ = try engine.render(frames: 48_000)
                let snapshot = engine.withLock { engine.telemetrySnapshotLocked() }
                let line = try #require(snapshot.music.first)
                #expect(line.kind == "adaptive" && line.state == "playing" && line.item == "calm")
                #expect(line.time > 0.9 && line.time < 1.01)
                #expect((snapshot.buses.first { $0.name == "music" }?.rmsDB ?? -120) > -6)
            }
        }
    }

    @Test(
        "Without monitoring a stream keeps no level: the first snapshot after turning it on covers only what followed")
    func noLevelWhileOff() throws {
        try withTemporaryDirectory { dir in
            let song = try fullScaleSine(in: dir)
            try withOfflineEngine { engine in
                let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: song)])
                player.play()
                _ = try engine.render(frames: 48_000)
                player.pause()
                _ = try engine.render(frames: 24_000)
                engine.withLock { engine.beginMonitoringLocked() }
                let snapshot = engine.withLock { engine.telemetrySnapshotLocked() }
                #expect(
                    snapshot.buses.allSatisfy { $0.rmsDB == -120 }, "the second played before monitoring is not counted"
                )
            }
        }
    }

    @Test("A starved stream's underrun is an event line and counts in the snapshot's underruns")
    func underrunEvent() throws {
        try withTemporaryDirectory { dir in
            let song = try Songs.constant(0.3, seconds: 2, in: dir, name: "song.wav")
            try withOfflineEngine { engine in
                let path = dir.appendingPathComponent("m.sock")
                try engine.startMonitoring(socketPath: path)
                let client = try TelemetryClient(path: path.path)
                defer { client.close() }
                let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: song)])
                // As on a real-time output whose decoder falls behind (AudioStreamTests).
                engine.withLock {
                    player.stream.decodesInline = false
                    player.stream.feed.holdsBackground = true
                }
                player.play()
                _ = try engine.render(frames: 4_800)
                for _ in 0..<3 { player.stream.feed.decodeStep() }
                _ = try engine.render(frames: 24_000)
                player.stream.feed.decodeStep()
                _ = try engine.render(frames: 4_800)
                #expect(player.underrunCount == 1)
                #expect(engine.withLock { engine.telemetrySnapshotLocked() }.engine.underruns == 1)
                var event: TelemetryEvent?
                for _ in 0..<1_000 {
                    guard let line = try client.nextLine(timeout: 20) else { break }
                    if case .event(let e) = line, e.event == .underrun {
                        event = e
                        break
                    }
                }
                #expect(event?.message?.contains("Music underrun") == true)
                #expect(event.map { $0.time > 0.1 && $0.time < 0.7 } == true, "stamped in engine time")
            }
        }
    }
}
