import Backbeat
import BackbeatLibrary
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@Suite("MusicPlayer")
struct MusicPlayerTests {
    @Test("The application player is one per engine")
    func onePerEngine() throws {
        try withOfflineEngine { engine in
            let a = try MusicPlayer.application(for: engine)
            let b = try MusicPlayer.application(for: engine)
            #expect(a === b)
            #expect(a.playbackState == .stopped && a.nowPlayingItem == nil && a.indexOfNowPlayingItem == nil)
        }
    }

    @Test("Each state, item and volume change raises exactly one notification, in order, only while generating")
    func notificationsInOrder() throws {
        try withDCLibrary(count: 2, seconds: 0.25) { library, items in
            try withOfflineEngine { engine in
                let player = try MusicPlayer.application(for: engine)
                let recorder = NotificationRecorder(player)
                player.volume = 0.5  // not generating yet: no notification
                player.beginGeneratingPlaybackNotifications()
                try player.setQueue(query: .songs(in: library))
                player.play()
                player.play()
                _ = try engine.render(frames: 48_000)
                player.volume = 0.8
                player.play()
                player.pause()
                player.stop()
                player.endGeneratingPlaybackNotifications()
                player.play()
                let expected: [MusicPlayer.Event] = [
                    .nowPlayingItemDidChange(items[0]),
                    .playbackStateDidChange(.playing),
                    .nowPlayingItemDidChange(items[1]),
                    .playbackStateDidChange(.stopped), .nowPlayingItemDidChange(items[0]),
                    .volumeDidChange(0.8),
                    .playbackStateDidChange(.playing), .playbackStateDidChange(.paused),
                    .playbackStateDidChange(.stopped),
                ]
                #expect(recorder.notifications == expected)
            }
        }
    }

    @Test("A shorter queue set while a later song plays: the first new song is now playing, announced once")
    func shorterQueueWhileLaterSongPlays() throws {
        try withDCLibrary(count: 3, seconds: 0.25) { library, items in
            try withOfflineEngine { engine in
                let player = try MusicPlayer.application(for: engine)
                player.setQueue(items: items)
                player.skipToNextItem()
                player.skipToNextItem()
                #expect(player.indexOfNowPlayingItem == 2)
                player.play()
                _ = try engine.render(frames: 4_800)
                let recorder = NotificationRecorder(player)
                player.beginGeneratingPlaybackNotifications()
                // The old position (2) is past the new queue's end; the item that played was items[2].
                player.setQueue(items: [items[0]])
                #expect(player.indexOfNowPlayingItem == 0 && player.nowPlayingItem?.asset.url == items[0].asset.url)
                #expect(player.playbackState == .stopped)
                #expect(
                    recorder.notifications == [.playbackStateDidChange(.stopped), .nowPlayingItemDidChange(items[0])])
                // Setting the same song again changes nothing the player announces.
                player.setQueue(items: [items[0]])
                #expect(recorder.notifications.count == 2)
            }
        }
    }

    @Test("The notification stream carries the same notifications")
    func notificationStream() async throws {
        var collected: [MusicPlayer.Event] = []
        try await withDCLibraryAsync(count: 2, seconds: 0.1) { library, items in
            let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
            let player = try MusicPlayer.application(for: engine)
            let stream = player.events()
            player.beginGeneratingPlaybackNotifications()
            player.setQueue(items: items, library: library)
            player.play()
            _ = try engine.render(frames: 24_000)
            engine.shutdown()
            for await n in stream { collected.append(n) }
            #expect(
                collected == [
                    .nowPlayingItemDidChange(items[0]), .playbackStateDidChange(.playing),
                    .nowPlayingItemDidChange(items[1]), .playbackStateDidChange(.stopped),
                    .nowPlayingItemDidChange(items[0]),
                ])
        }
    }

    @Test("Repeat-one plays the same song over, gaplessly, and counts each play")
    func repeatOne() throws {
        try withDCLibrary(count: 2, seconds: 0.25) { library, items in
            try withOfflineEngine { engine in
                let player = try MusicPlayer.application(for: engine)
                player.setQueue(items: items, library: library)
                player.repeatMode = .one
                player.play()
                let out = try engine.render(frames: 48_000)
                let left = SampleAnalysis.channel(out, 0, of: 2)
                let first = try #require(SampleAnalysis.firstAudibleFrame(left, channels: 1))
                #expect(left[first...].allSatisfy { abs($0 - 0.1) < 1e-4 }, "song 1 only, no gap")
                #expect(player.indexOfNowPlayingItem == 0)
                library.waitForStatistics()  // written on the library's own queue
                #expect(try library.item(persistentID: items[0].persistentID).playCount == 3)
            }
        }
    }

    @Test("Repeat-all plays the queue round and round")
    func repeatAll() throws {
        try withDCLibrary(count: 3, seconds: 0.25) { _, items in
            try withOfflineEngine { engine in
                let player = try MusicPlayer.application(for: engine)
                player.setQueue(items: items)
                player.repeatMode = .all
                player.play()
                let out = try engine.render(frames: 12_000 * 8)
                #expect(Songs.order(SampleAnalysis.channel(out, 0, of: 2)) == [1, 2, 3, 1, 2, 3, 1, 2])
            }
        }
    }

    @Test("Shuffle-songs visits every song once per cycle; a seed reproduces the order", arguments: [UInt64(1), 42])
    func shuffleSongs(seed: UInt64) throws {
        try withDCLibrary(count: 5, seconds: 0.1) { _, items in
            func run() throws -> [Int] {
                try withOfflineEngine { engine in
                    let player = try MusicPlayer.application(for: engine)
                    player.setQueue(items: items)
                    player.repeatMode = .all
                    player.shuffleMode = .songs
                    player.seedShuffle(seed)
                    player.play()
                    let out = try engine.render(frames: 4_800 * 15 + 2_400)
                    return Songs.order(SampleAnalysis.channel(out, 0, of: 2), minimum: 2_000)
                }
            }
            let order = try run()
            #expect(order.count >= 15)
            for cycle in 0..<3 {
                #expect(Set(order[(cycle * 5)..<(cycle * 5 + 5)]) == Set(1...5), "cycle \(cycle) of \(order)")
            }
            #expect(try run() == order)
        }
    }

    @Test("Shuffle-albums keeps each album's songs together, in order")
    func shuffleAlbums() throws {
        try withDCLibrary(count: 6, seconds: 0.1, albums: 3) { _, items in
            try withOfflineEngine { engine in
                let player = try MusicPlayer.application(for: engine)
                // Songs 1,4 are album 0; 2,5 album 1; 3,6 album 2.
                player.setQueue(items: items)
                player.shuffleMode = .albums
                player.seedShuffle(7)
                player.play()
                let out = try engine.render(frames: 4_800 * 6 + 4_800)
                let order = Songs.order(SampleAnalysis.channel(out, 0, of: 2), minimum: 2_000).filter { $0 != 0 }
                #expect(order.count == 6)
                for pair in stride(from: 0, to: 6, by: 2) { #expect(order[pair + 1] == order[pair] + 3, "\(order)") }
            }
        }
    }

    @Test("Skip-previous at 2 s goes to the previous song; at 5 s it restarts the song")
    func skipPrevious() throws {
        try withDCLibrary(count: 3, seconds: 6) { library, items in
            try withOfflineEngine { engine in
                let player = try MusicPlayer.application(for: engine)
                player.setQueue(items: items, library: library)
                player.play()
                player.skipToNextItem()
                #expect(player.indexOfNowPlayingItem == 1)
                try engine.advance(by: MediaTime(seconds: 2))
                #expect(abs(player.currentPlaybackTime.seconds - 2) < 0.02)
                player.skipToPreviousItem()
                #expect(player.indexOfNowPlayingItem == 0)
                #expect(player.currentPlaybackTime == .zero)
                player.skipToNextItem()
                try engine.advance(by: MediaTime(seconds: 5))
                player.skipToPreviousItem()
                #expect(player.indexOfNowPlayingItem == 1)
                let out = try engine.render(frames: 4_800)
                #expect(player.currentPlaybackTime.seconds < 0.2)
                #expect(abs(out[out.count - 2] - 0.2) < 1e-3, "song 2 from its start")
                library.waitForStatistics()  // written on the library's own queue
                #expect(try library.item(persistentID: items[0].persistentID).skipCount == 2)
                player.skipToNextItem()
                player.skipToNextItem()  // past the last: stops at the first
                #expect(player.playbackState == .stopped)
                #expect(player.indexOfNowPlayingItem == 0)
            }
        }
    }

    @Test("Seeking scans audibly forward and backward; endSeeking returns to playing")
    func scanning() throws {
        try withDCLibrary(count: 1, seconds: 8) { _, items in
            try withOfflineEngine { engine in
                let player = try MusicPlayer.application(for: engine)
                player.setQueue(items: items)
                player.play()
                player.beginSeekingForward()
                #expect(player.playbackState == .seekingForward)
                let out = try engine.render(frames: 48_000)
                #expect(SampleAnalysis.rms(out) > 0.05, "audible while scanning")
                #expect(player.currentPlaybackTime.seconds > 3, "about 4× speed")
                player.endSeeking()
                #expect(player.playbackState == .playing)
                let forward = player.currentPlaybackTime.seconds
                player.beginSeekingBackward()
                _ = try engine.render(frames: 48_000)
                #expect(player.currentPlaybackTime.seconds < forward - 2)
                player.endSeeking()
                #expect(player.playbackState == .playing)
            }
        }
    }

    @Test("Bad input: an empty queue, seeking below zero and beyond the end")
    func badInput() throws {
        try withDCLibrary(count: 2, seconds: 0.5) { _, items in
            try withOfflineEngine { engine in
                let player = try MusicPlayer.application(for: engine)
                let recorder = NotificationRecorder(player)
                player.beginGeneratingPlaybackNotifications()
                #expect(throws: BackbeatError.self) { try player.prepareToPlay() }
                player.play()
                player.skipToNextItem()
                player.seek(to: MediaTime(seconds: 3))
                #expect(player.playbackState == .stopped)
                #expect(recorder.notifications.isEmpty)
                #expect(SampleAnalysis.peak(try engine.render(frames: 4_800)) == 0)

                player.setQueue(items: items)
                try player.prepareToPlay()
                player.play()
                player.seek(to: MediaTime(seconds: -5))
                _ = try engine.render(frames: 2_400)
                #expect(player.currentPlaybackTime.seconds < 0.06)
                player.seek(to: MediaTime(seconds: 1_000))
                _ = try engine.render(frames: 2_400)
                #expect(player.indexOfNowPlayingItem == 1, "beyond the end: the item ends, the queue moves on")
                player.seek(to: MediaTime(seconds: .nan))  // zero: seeks to the start of the item
                #expect(player.indexOfNowPlayingItem == 1)
            }
        }
    }

    @Test(
        "Seeking to an infinite or huge time never traps: beyond the end moves on, below zero starts at zero",
        arguments: [Double.infinity, .greatestFiniteMagnitude, 1e300, 9.3e18, 1e15])
    func seekingToHugeTimes(time: Double) throws {
        try withDCLibrary(count: 3, seconds: 0.5) { _, items in
            try withOfflineEngine { engine in
                let player = try MusicPlayer.application(for: engine)
                player.setQueue(items: items)
                player.play()
                _ = try engine.render(frames: 2_400)
                player.seek(to: MediaTime(seconds: time))
                _ = try engine.render(frames: 2_400)
                #expect(player.indexOfNowPlayingItem == 1, "beyond the end: the item ends, the queue moves on")
                player.seek(to: MediaTime(seconds: -time))
                _ = try engine.render(frames: 2_400)
                #expect(player.indexOfNowPlayingItem == 1)
                #expect(player.currentPlaybackTime.seconds < 0.06, "below zero seeks to the start")
                #expect(
                    abs(SampleAnalysis.channel(try engine.render(frames: 2_400), 0, of: 2).last! - 0.2) < 1e-3,
                    "the second item (DC 0.2) plays")
            }
        }
    }

    @Test("Metering reports average and peak power of what plays, after the volume")
    func metering() throws {
        try withDCLibrary(count: 5, seconds: 1) { _, items in
            try withOfflineEngine { engine in
                let player = try MusicPlayer.application(for: engine)
                player.setQueue(items: [items[4]])  // DC 0.5
                player.isMeteringEnabled = true
                player.play()
                _ = try engine.render(frames: 24_000)
                player.updateMeters()
                #expect(abs(player.averagePower(forChannel: 0) - 20 * log10(0.5)) < 0.1)
                #expect(abs(player.peakPower(forChannel: 1) - 20 * log10(0.5)) < 0.1)
                player.volume = 0.5
                _ = try engine.render(frames: 9_600)
                player.updateMeters()
                #expect(abs(player.averagePower(forChannel: 0) - 20 * log10(0.25)) < 0.1)
                #expect(player.averagePower(forChannel: 7) == -160)
                player.stop()
                player.isMeteringEnabled = false
                #expect(player.peakPower(forChannel: 0) == -160)
            }
        }
    }
}
