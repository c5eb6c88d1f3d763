import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// The application player and the queue player, driven through the one
/// protocol with the same code, do the same things.
@Suite struct MusicPlayingTests {
    /// Plays two DC songs (0.1 then 0.2), seeks, skips, and reports what was heard.
    static func drive(_ player: some MusicPlaying, on engine: AudioEngine) throws -> (
        level: [Float], seconds: [Double], events: Int
    ) {
        let events = LockedValueBox(0)
        let token = player.observe { _ in events.withLockedValue { $0 += 1 } }
        var level: [Float] = []
        var seconds: [Double] = []
        func listen() throws {
            let left = SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2)
            level.append((left.last! * 10).rounded() / 10)
            seconds.append(try player.currentPlaybackTime.seconds)
        }
        try player.play()
        try listen()
        try player.seek(to: MediaTime(seconds: 1))
        try listen()
        try player.skipToNextItem()
        try listen()
        try player.pause()
        try listen()
        token.cancel()
        let before = events.withLockedValue { $0 }
        try player.play()
        _ = try engine.render(frames: 4_800)
        #expect(events.withLockedValue { $0 } == before, "a cancelled handler hears nothing more")
        return (level, seconds, before)
    }

    @Test("MusicPlayer and QueuePlayer do the same under the same calls")
    func sameBehaviour() throws {
        try withDCLibrary(count: 2, seconds: 2) { _, items in
            let application = try withOfflineEngine { engine -> (level: [Float], seconds: [Double], events: Int) in
                let player = try MusicPlayer.application(for: engine)
                player.setQueue(items: items)
                player.beginGeneratingPlaybackNotifications()
                return try Self.drive(player, on: engine)
            }
            let queue = try withOfflineEngine { engine -> (level: [Float], seconds: [Double], events: Int) in
                let player = try QueuePlayer(engine: engine, items: items.map { PlayerItem(url: $0.assetURL) })
                return try Self.drive(player, on: engine)
            }
            #expect(application.level == [0.1, 0.1, 0.2, 0.0])
            #expect(queue.level == application.level)
            for (a, q) in zip(application.seconds, queue.seconds) { #expect(abs(a - q) < 0.01) }
            #expect(abs(application.seconds[1] - 1.1) < 0.02, "seek(to: 1 s), then 0.1 s played")
            #expect(application.events > 0 && queue.events > 0)
        }
    }
}
