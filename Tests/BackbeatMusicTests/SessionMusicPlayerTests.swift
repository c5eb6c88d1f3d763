import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// The hooks the audio session drives on music players (engine side).
@Suite("Music players under the session")
struct SessionMusicPlayerTests {
    @Test("Interrupted players fall silent, keep their place and resume where they were")
    func interruptAndResume() throws {
        try withTemporaryDirectory { dir in
            let a = dir.appendingPathComponent("a.wav")
            try Songs.write(Songs.sineFrames(0..<96_000), to: a)
            try withOfflineEngine { engine in
                let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: a)])
                let recorder = PlayerEventRecorder(player)
                player.play()
                _ = try engine.render(frames: 24_000)
                let interrupted = engine.withLock {
                    engine.liveMusicPlayersLocked.filter { player in player.sessionInterrupt(reason: "call") }
                }
                #expect(interrupted.map(\.sessionPlayerID) == [player.sessionPlayerID])
                _ = try engine.render(frames: 2_400)
                let at = player.currentPlaybackTime
                let silent = try engine.render(frames: 24_000)
                #expect(SampleAnalysis.peak(silent) == 0)
                #expect(player.currentPlaybackTime == at, "time in the song stands still")
                #expect(player.timeControlStatus == .interrupted)
                engine.withLock { for player in interrupted { player.sessionResume(reason: "ended") } }
                let resumed = try engine.render(frames: 4_800)
                #expect(SampleAnalysis.rms(resumed) > 0.2)
                #expect(abs(player.currentPlaybackTime.seconds - at.seconds - 0.1) < 0.01)
                #expect(
                    recorder.events == [
                        .timeControlStatusChanged(.playing), .timeControlStatusChanged(.interrupted),
                        .timeControlStatusChanged(.playing),
                    ])
            }
        }
    }

    @Test("The game-music mute silences the QueuePlayer without stopping time; MusicPlayer ignores it")
    func gameMusicMute() throws {
        try withDCLibrary(count: 2, seconds: 2) { _, items in
            try withOfflineEngine { engine in
                let queue = try QueuePlayer(engine: engine, items: [PlayerItem(url: items[0].assetURL)])
                let music = try MusicPlayer.application(for: engine)
                music.setQueue(items: [items[1]])
                queue.play()
                music.play()
                _ = try engine.render(frames: 4_800)
                engine.withLock { for player in engine.liveMusicPlayersLocked { player.setGameMusicMuted(true) } }
                #expect(engine.withLock { engine.liveMusicPlayersLocked }.filter(\.isGameMusic).count == 1)
                let before = queue.currentPlaybackTime
                let muted = try engine.render(frames: 9_600)
                #expect(abs(SampleAnalysis.channel(muted, 0, of: 2).last! - 0.2) < 1e-3, "only the music player's 0.2")
                #expect(queue.currentPlaybackTime > before, "the muted queue player keeps time")
                engine.withLock { for player in engine.liveMusicPlayersLocked { player.setGameMusicMuted(false) } }
                let both = try engine.render(frames: 4_800)
                #expect(abs(SampleAnalysis.channel(both, 0, of: 2).last! - 0.3) < 1e-3)
            }
        }
    }
}
