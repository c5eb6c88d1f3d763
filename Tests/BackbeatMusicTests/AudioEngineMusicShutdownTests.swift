import Backbeat
import BackbeatLibrary
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@Suite("AudioEngine shutdown fade")
struct AudioEngineMusicShutdownTests {
    /// 500 Hz: exactly five cycles per 480-frame block, so a block's RMS is the envelope.
    static func sineSong(in dir: URL, seconds: Int = 5) throws -> URL {
        let url = dir.appendingPathComponent("sine.wav")
        try Songs.write(Songs.sineFrames(0..<(seconds * 48_000), frequency: 500), to: url)
        return url
    }

    static func blockRMS(_ samples: [Float], block: Int = 480) -> [Float] {
        stride(from: 0, to: samples.count / 2 - block + 1, by: block).map { start in
            SampleAnalysis.rms(SampleAnalysis.channel(Array(samples[(start * 2)..<((start + block) * 2)]), 0, of: 2))
        }
    }

    static func checkFade(_ tail: [Float], frames: Int) {
        let rms = blockRMS(tail)
        #expect(rms.count >= frames / 480)
        #expect(abs(rms[0] - Float(0.5 / 2.0.squareRoot())) < 0.02, "full level when the fade starts")
        for i in 1..<rms.count { #expect(rms[i] <= rms[i - 1] + 1e-4, "block \(i) of \(rms.count) rises") }
        #expect(rms[frames / 480 - 1] < 0.02, "nearly silent by the end of the fade")
        // OpenAL's limiter delays the output by its 1 ms lookahead.
        #expect(SampleAnalysis.peak(tail[((frames + 48) * 2)...]) < 1e-4, "silent after it")
        // A 500 Hz sine at 0.5 moves at most 0.033 per sample; a cut would jump up to 0.5.
        #expect(SampleAnalysis.maxJump(tail, channels: 2) < 0.04)
    }

    @Test("shutdown() on a .file output renders an equal-power fade of the application player into the file")
    func fileOutputFade() throws {
        try withTemporaryDirectory { dir in
            let songs = dir.appendingPathComponent("songs")
            try FileManager.default.createDirectory(at: songs, withIntermediateDirectories: true)
            let song = try Self.sineSong(in: songs)
            let out = dir.appendingPathComponent("out.wav")
            let engine = try AudioEngine(output: .file(url: out, sampleRate: 48_000))
            let library = try MediaLibrary(roots: [song.deletingLastPathComponent()], index: .inMemory)
            try library.scan()
            let player = try MusicPlayer.application(for: engine)
            try player.setQueue(query: .songs(in: library))
            player.play()
            try engine.advance(by: MediaTime(seconds: 1))
            engine.shutdown()
            let decoder = try AudioDecoders.open(out)
            var samples: [Float] = []
            _ = try decoder.read(frames: Int(decoder.frameCount), into: &samples)
            #expect(decoder.frameCount >= 96_000 && decoder.frameCount <= 96_000 + 960)
            Self.checkFade(Array(samples[(48_000 * 2)...]), frames: 48_000)
        }
    }

    @Test("The game's QueuePlayer fades out too")
    func queuePlayerFade() throws {
        try withTemporaryDirectory { dir in
            let song = try Self.sineSong(in: dir)
            try withOfflineEngine { engine in
                let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: song)])
                player.play()
                _ = try engine.render(frames: 24_000)
                player.fadeOut(duration: MediaTime(seconds: 0.25))
                Self.checkFade(try engine.render(frames: 12_000 + 960), frames: 12_000)
            }
        }
    }

    @Test("fadeOut(duration:) renders the same fade offline; the shutdown fade length is configurable")
    func offlineFadeOut() throws {
        try withTemporaryDirectory { dir in
            let song = try Self.sineSong(in: dir)
            let library = try MediaLibrary(roots: [dir], index: .inMemory)
            try library.scan()
            try withOfflineEngine { engine in
                #expect(engine.shutdownFadeDuration == MediaTime(seconds: 1))
                engine.shutdownFadeDuration = MediaTime(seconds: -2)
                #expect(engine.shutdownFadeDuration == .zero)
                let player = try MusicPlayer.application(for: engine)
                try player.setQueue(query: .songs(in: library))
                #expect(player.nowPlayingItem?.asset.url.lastPathComponent == song.lastPathComponent)
                player.play()
                _ = try engine.render(frames: 24_000)
                player.fadeOut(duration: MediaTime(seconds: 0.5))
                let tail = try engine.render(frames: 24_000 + 960)
                Self.checkFade(tail, frames: 24_000)
            }
        }
    }

    @Test("A .file shutdown with nothing playing adds no fade")
    func nothingPlaying() throws {
        try withTemporaryDirectory { dir in
            let out = dir.appendingPathComponent("out.wav")
            let engine = try AudioEngine(output: .file(url: out, sampleRate: 48_000))
            _ = try MusicPlayer.application(for: engine)
            try engine.advance(by: MediaTime(seconds: 0.1))
            engine.shutdown()
            #expect(try AudioDecoders.open(out).frameCount == 4_800)
        }
    }
}
