import Backbeat
import BackbeatCapture
import BackbeatReplay
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// Capture and replay of the engine's buses and game parameters, the music
/// players and the audio session, sample for sample on offline engines.
@Suite("Music, bus and session capture")
struct MusicCaptureTests {
    static let rate = 48_000

    /// The scene's files: two songs, two adaptive sections of two stems, a stinger.
    struct Files {
        let songs: [URL]
        let calm: [URL]
        let fight: [URL]
        let stinger: URL
        /// A voice line the music ducks under until it ends.
        let line: URL

        init(in dir: URL) throws {
            func tone(_ name: String, _ frequency: Double, seconds: Double, amplitude: Float = 0.2) throws -> URL {
                let url = dir.appendingPathComponent(name)
                let frames = Int(seconds * Double(MusicCaptureTests.rate))
                try Songs.write(Songs.sineFrames(0..<frames, frequency: frequency, amplitude: amplitude), to: url)
                return url
            }
            songs = [try tone("song-a.wav", 441, seconds: 1.2), try tone("song-b.wav", 661, seconds: 1.5)]
            calm = [try tone("calm-base.wav", 220, seconds: 2), try tone("calm-drums.wav", 1_320, seconds: 2)]
            fight = [try tone("fight-base.wav", 330, seconds: 2), try tone("fight-drums.wav", 1_760, seconds: 2)]
            stinger = try tone("stinger.wav", 990, seconds: 0.25, amplitude: 0.3)
            line = try tone("line.wav", 550, seconds: 0.2, amplitude: 0.3)
        }
    }

    /// The scene: a queue player (skip, seek, fade), an adaptive player
    /// (transitions, a stinger, a layer bound to a parameter), bus volume,
    /// mute, ducks (one released by hand, one by a voice's end) and a filter
    /// following a parameter sweep, and a session
    /// interruption that begins and ends. Captures to `capture` when given.
    /// Returns every frame rendered.
    static func renderScene(_ files: Files, capturingTo capture: URL?) throws -> [Float] {
        let engine = try AudioEngine(output: .offline(sampleRate: rate, channels: 2))
        defer { engine.shutdown() }
        let session = try capture.map { try engine.startCapture(to: $0) }
        var out: [Float] = []
        // Rendered in calls of 1,000 frames, which end between update steps
        // (every 240 frames) while fades run: a replay must split there too.
        func render(_ seconds: Double) throws {
            var left = Int(seconds * Double(rate))
            while left > 0 {
                out += try engine.render(frames: min(left, 1_000))
                left -= 1_000
            }
        }

        let intensity = try GameParameter(name: "intensity", slewPerSecond: 4, engine: engine)
        engine.musicBus.bindFilterCutoff(to: intensity, curve: .linear(from: 20_000, to: 900))
        let queue = try QueuePlayer(engine: engine, items: files.songs.map(PlayerItem.init(url:)))
        queue.play()
        try render(0.3)
        queue.skipToNextItem()
        try render(0.2)
        queue.seek(to: MediaTime(seconds: 0.5))
        try render(0.2)
        queue.fade(to: 0.2, duration: MediaTime(seconds: 0.3))
        try render(0.3)
        queue.pause()

        let tempo = try TempoMap(beatsPerMinute: 120)
        func section(_ name: String, _ urls: [URL]) -> MusicSection {
            MusicSection(
                name: name,
                stems: [
                    MusicStem(layer: "base", asset: AudioAsset(url: urls[0])),
                    MusicStem(layer: "drums", asset: AudioAsset(url: urls[1])),
                ], tempo: tempo)
        }
        let adaptive = try AdaptiveMusicPlayer(
            engine: engine, sections: [section("calm", files.calm), section("fight", files.fight)])
        adaptive.bindLayer("drums", to: intensity, curve: .linear)
        try adaptive.play(section: "calm")
        try render(0.3)
        intensity.value = 1
        try adaptive.transition(to: "fight", quantization: .beat, style: .crossfade(MediaTime(seconds: 0.2)))
        try adaptive.playStinger(AudioAsset(url: files.stinger), quantization: .beat)
        try render(0.4)
        intensity.value = 0.2
        engine.musicBus.volume = 0.7
        try render(0.2)
        engine.musicBus.isMuted = true
        try render(0.1)
        engine.musicBus.isMuted = false
        let duck = engine.musicBus.duck(by: -12, attack: MediaTime(seconds: 0.05), release: MediaTime(seconds: 0.1))
        try render(0.2)
        duck.release()
        try render(0.1)
        // Released by itself when the line ends, at the same frame in a replay.
        let line = SoundEffect(contentsOf: files.line, engine: engine).play(volume: 0.5)
        engine.musicBus.duck(by: -15, attack: MediaTime(seconds: 0.02), release: MediaTime(seconds: 0.05), until: line)
        try render(0.4)

        try engine.session.setCategory(.playback)
        engine.session.setActive(true)
        engine.session.post(.interruptionBegan)
        try render(0.2)
        engine.session.post(.interruptionEnded(shouldResume: true))
        try adaptive.transition(to: "calm", quantization: .bar)
        try render(0.6)
        try session?.stop()
        return out
    }

    /// Replays `capture` to a WAV and returns its samples.
    static func replay(_ capture: URL, in dir: URL) throws -> [Float] {
        let wav = dir.appendingPathComponent("replay-\(UUID().uuidString).wav")
        let result = try Replayer(url: capture).run(writingTo: wav)
        #expect(result.ended && result.damage == nil)
        return try SampleAnalysis.samples(contentsOf: wav).samples
    }

    @Test("The scene replays sample for sample, and capturing it changes no sample")
    func sceneReplaysExactly() throws {
        try withTemporaryDirectory { dir in
            let files = try Files(in: dir)
            let capture = dir.appendingPathComponent("scene.bbcap")
            let captured = try Self.renderScene(files, capturingTo: capture)
            let plain = try Self.renderScene(files, capturingTo: nil)
            #expect(captured == plain, "a render with capture on equals one without")
            #expect(SampleAnalysis.rms(captured) > 0.01)

            let replayed = try Self.replay(capture, in: dir)
            #expect(replayed.count == captured.count)
            let first = Self.firstDifference(replayed, captured)
            #expect(replayed == captured, "first difference at sample \(first)")

            // Every kind this scene relies on is in the capture.
            let kinds = Set(try CaptureFileReader(url: capture).readAll().map(\.kind))
            let expected: [CaptureKind] = [
                .busDeclare, .busVolume, .busMute, .busDuck, .duckRelease, .busDuckUntil, .busFilterBinding,
                .parameterDeclare,
                .parameterValue, .queuePlayerDeclare, .musicItemDeclare, .musicPlay, .musicSkipNext, .musicSeek,
                .musicFade, .musicPause, .adaptivePlayerDeclare, .adaptiveTransition, .adaptiveStinger,
                .adaptiveBindLayer, .sessionCategory, .sessionActive, .sessionEvent,
            ]
            for kind in expected { #expect(kinds.contains(kind), "no record of kind \(kind)") }
        }
    }

    @Test("A capture missing one record (the interruption's end) replays differently")
    func aDroppedRecordIsHeard() throws {
        try withTemporaryDirectory { dir in
            let files = try Files(in: dir)
            let capture = dir.appendingPathComponent("scene.bbcap")
            let captured = try Self.renderScene(files, capturingTo: capture)
            let records = try CaptureFileReader(url: capture).readAll()
            let dropped = try #require(
                records.lastIndex { record in
                    guard record.kind == .sessionEvent else { return false }
                    var decoder = record.decoder
                    return (try? SessionCaptureValues.call(kind: record.kind, from: &decoder))
                        == .event(.interruptionEnded(shouldResume: true), source: .hostGame)
                })
            let damaged = dir.appendingPathComponent("dropped.bbcap")
            let writer = try CaptureFileWriter(url: damaged)
            for (index, record) in records.enumerated() where index != dropped {
                writer.append(record.kind, frame: record.frame) { encoder in
                    for byte in record.payload { encoder.appendFixed(byte) }
                }
            }
            try writer.close()
            let replayed = try Self.replay(damaged, in: dir)
            #expect(replayed.count == captured.count)
            #expect(replayed != captured)
        }
    }

    @Test("A music file missing at replay is one line naming it and its path; nothing is written")
    func missingMusicFile() throws {
        try withTemporaryDirectory { dir in
            let song = dir.appendingPathComponent("theme.wav")
            try Songs.write(Songs.sineFrames(0..<4_800), to: song)
            let capture = dir.appendingPathComponent("missing.bbcap")
            try withOfflineEngine(sampleRate: Self.rate) { engine in
                let session = try engine.startCapture(to: capture)
                let queue = try QueuePlayer(engine: engine, items: [PlayerItem(url: song)])
                queue.play()
                _ = try engine.render(frames: 4_800)
                try session.stop()
            }
            try FileManager.default.removeItem(at: song)
            let wav = dir.appendingPathComponent("out.wav")
            let error = try #require(throws: BackbeatError.self) { try Replayer(url: capture).run(writingTo: wav) }
            #expect(error.code == .fileNotFound)
            #expect("\(error)".contains("theme.wav") && "\(error)".contains(song.path))
            #expect(!"\(error)".contains("\n"))
            #expect(!FileManager.default.fileExists(atPath: wav.path))
        }
    }

    /// A queue player that plays a song and is let go of halfway (its last
    /// reference dropped): 0.2 s with it, 0.2 s after.
    static func releasedPlayerScene(_ song: URL, capturingTo capture: URL?) throws -> [Float] {
        try withOfflineEngine(sampleRate: rate) { engine in
            let session = try capture.map { try engine.startCapture(to: $0) }
            var out: [Float] = []
            do {
                let queue = try QueuePlayer(engine: engine, items: [PlayerItem(url: song)])
                queue.play()
                out += try engine.render(frames: 9_600)
            }
            out += try engine.render(frames: 9_600)
            try session?.stop()
            return out
        }
    }

    @Test("A player the game lets go of stops in the replay where it stopped in the game")
    func releasedPlayerStops() throws {
        try withTemporaryDirectory { dir in
            let song = dir.appendingPathComponent("theme.wav")
            try Songs.write(Songs.sineFrames(0..<48_000, frequency: 441, amplitude: 0.2), to: song)
            let capture = dir.appendingPathComponent("released.bbcap")
            let original = try Self.releasedPlayerScene(song, capturingTo: capture)
            #expect(SampleAnalysis.rms(original[..<19_200]) > 0.05, "the song plays")
            // Its stream closes at the engine's next entry, the next render's first step.
            #expect(SampleAnalysis.rms(original[(19_200 + 960)...]) == 0, "and stops when the player goes")
            let records = try CaptureFileReader(url: capture).readAll()
            #expect(records.contains { $0.kind == .musicPlayerReleased })
            let replayed = try Self.replay(capture, in: dir)
            #expect(replayed.count == original.count)
            #expect(replayed == original, "first difference at sample \(Self.firstDifference(replayed, original))")

            // Without the release, the replay's player plays on.
            let kept = dir.appendingPathComponent("kept.bbcap")
            let writer = try CaptureFileWriter(url: kept)
            for record in records where record.kind != .musicPlayerReleased {
                writer.append(record.kind, frame: record.frame) { encoder in
                    for byte in record.payload { encoder.appendFixed(byte) }
                }
            }
            try writer.close()
            let playedOn = try Self.replay(kept, in: dir)
            #expect(SampleAnalysis.rms(playedOn[(19_200 + 960)...]) > 0.05)
        }
    }

    static func firstDifference(_ a: [Float], _ b: [Float]) -> Int {
        zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
    }
}
