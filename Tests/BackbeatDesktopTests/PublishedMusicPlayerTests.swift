import Backbeat
import BackbeatDesktop
import BackbeatLibrary
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatDesktop

@Suite(.serialized) struct PublishedMusicPlayerTests {
    /// Three 1-second songs with a cover beside them, scanned into a library.
    static func withCoveredLibrary(_ body: (MediaLibrary, [MediaItem], Data) async throws -> Void) async throws {
        try await withTemporaryDirectoryAsync { dir in
            for n in 1...3 {
                var tags = AudioTags(title: "Song \(n)", artist: "Tester", albumTitle: "Covered")
                tags.trackNumber = n
                let writer = try SoundFileWriter(
                    url: dir.appendingPathComponent("0\(n).wav"), type: .wavFloat,
                    sampleRate: 48_000, channelCount: 2, overwrite: true, tags: tags)
                try writer.write([Float](repeating: Float(n) / 10, count: 48_000 * 2)[...])
                try writer.finish()
            }
            let cover = try LibraryFixture.bluePNG()
            try cover.write(to: dir.appendingPathComponent("cover.png"))
            let library = try MediaLibrary(roots: [dir], index: .inMemory)
            try library.scan()
            let items = try MediaQuery.songs(in: library).items.sorted { $0.title < $1.title }
            try await body(library, items, cover)
        }
    }

    @Test(.enabled(if: MPRISServerTests.playerctlAvailable)) func playerctlShowsAndDrivesTheApplicationPlayer()
        async throws
    {
        try await PrivateBus.with { bus in
            try await Self.withCoveredLibrary { library, items, cover in
                let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
                defer { engine.shutdown() }
                let player = try MusicPlayer.application(for: engine)
                try player.setQueue(query: .songs(in: library))
                let desktop = DesktopEnvironment(busAddress: bus.address)
                let publication = try desktop.publish(player, name: "game", identity: "Test Game")
                #expect(publication.playerName == "backbeat.game" && publication.isPublished)
                #expect(try playerctl(bus, "-l").split(separator: "\n").contains("backbeat.game"))
                #expect(desktop.players.isEmpty, "the game's own player is not other audio")

                let p = "--player=backbeat.game"
                #expect(try playerctl(bus, p, "metadata", "title") == "Song 1")
                #expect(try playerctl(bus, p, "metadata", "artist") == "Tester")
                #expect(try playerctl(bus, p, "metadata", "album") == "Covered")
                #expect(try playerctl(bus, p, "metadata", "mpris:length") == "1000000")
                #expect(try playerctl(bus, p, "status") == "Stopped")
                let art = try #require(URL(string: try playerctl(bus, p, "metadata", "mpris:artUrl")))
                #expect(art.isFileURL)
                #expect(FileManager.default.contents(atPath: art.path) == cover, "the artwork file is the item's cover")

                try playerctl(bus, p, "play-pause")
                try await eventually("play-pause plays") { player.playbackState == .playing }
                try await eventually("the desktop sees Playing") { try playerctl(bus, p, "status") == "Playing" }
                try playerctl(bus, p, "next")
                try await eventually("next moves to Song 2") { player.nowPlayingItem as? MediaItem == items[1] }
                try await eventually("the desktop sees Song 2") {
                    try playerctl(bus, p, "metadata", "title") == "Song 2"
                }
                try playerctl(bus, p, "previous")
                try await eventually("previous moves back to Song 1") {
                    player.nowPlayingItem as? MediaItem == items[0]
                }
                try playerctl(bus, p, "play-pause")
                try await eventually("play-pause pauses") { player.playbackState == .paused }
                try playerctl(bus, p, "loop", "Playlist")
                try await eventually("LoopStatus sets the repeat mode") { player.repeatMode == .all }
                try playerctl(bus, p, "stop")
                try await eventually("stop stops") { player.playbackState == .stopped }

                // A change that comes from the game's side (the song plays through)
                // reaches another client as a PropertiesChanged signal.
                let watcher = try DBusConnection.open(address: bus.address)
                defer { watcher.close() }
                let client = try MPRISClient(connection: watcher)
                player.play()
                try await eventually("another client sees it play") {
                    client.player(named: "backbeat.game")?.isPlaying == true
                }
                _ = try engine.render(frames: 48_000 + 4_800)
                #expect(player.nowPlayingItem as? MediaItem == items[1])
                try await eventually("the next song is signalled") {
                    client.player(named: "backbeat.game")?.nowPlaying?.title == "Song 2"
                }

                // Unpublished: off the bus, artwork removed, commands no longer reach the player.
                let folder = art.deletingLastPathComponent()
                publication.unpublish()
                #expect(!publication.isPublished)
                #expect(!FileManager.default.fileExists(atPath: folder.path))
                try await eventually("gone from the bus") { client.player(named: "backbeat.game") == nil }
                #expect(try !playerctl(bus, "-l").split(separator: "\n").contains("backbeat.game"))
                // Published again, from the same environment.
                let again = try desktop.publish(player, name: "game")
                #expect(try playerctl(bus, p, "metadata", "title") == "Song 2")
                #expect(throws: BackbeatError.self) { try desktop.publish(player, name: "second") }
                again.unpublish()
            }
        }
    }

    /// Seek and SetPosition from a peer, with the values the MPRIS
    /// specification says to ignore or clamp, and the extremes of Int64.
    @Test func peersSeekValuesAreClampedOrIgnoredAsTheSpecificationSays() async throws {
        try await PrivateBus.with { bus in
            try await Self.withCoveredLibrary { library, items, _ in
                let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
                defer { engine.shutdown() }
                let player = try MusicPlayer.application(for: engine)
                try player.setQueue(query: .songs(in: library))
                let desktop = DesktopEnvironment(busAddress: bus.address)
                let publication = try desktop.publish(player, name: "game")
                defer { publication.unpublish() }
                let peer = try DBusConnection.open(address: bus.address)
                defer { peer.close() }
                /// Calls the published player and waits until the command is carried out.
                func send(_ member: String, _ arguments: DBusValue...) throws {
                    _ = try peer.call(
                        DBusCall(
                            destination: publication.busName, path: DBusNames.mprisPath,
                            interface: DBusNames.mprisPlayer, member: member, arguments: arguments))
                    publication.adapter.flush()
                }
                func microseconds(_ us: Int64) -> MediaTime { MediaTime(value: us, timescale: 1_000_000) }
                func id(_ item: MediaItem) -> DBusValue { .objectPath("/org/backbeat/item/\(item.persistentID)") }
                func position() throws -> Int64? {
                    try peer.call(
                        .getProperty(
                            publication.busName, path: DBusNames.mprisPath, interface: DBusNames.mprisPlayer,
                            name: "Position")
                    ).first?.int64
                }

                // The track ID the player publishes is the one SetPosition takes.
                try send("SetPosition", id(items[0]), .int64(500_000))
                #expect(player.currentPlaybackTime == microseconds(500_000))
                #expect(try position() == 500_000)

                // Ignored: another item's (stale) ID, a position past the length
                // (1 s here), Int64.max, negative, Int64.min.
                try send("SetPosition", id(items[1]), .int64(200_000))
                try send("SetPosition", id(items[0]), .int64(1_000_001))
                try send("SetPosition", id(items[0]), .int64(.max))
                try send("SetPosition", id(items[0]), .int64(-1))
                try send("SetPosition", id(items[0]), .int64(.min))
                try send("SetPosition", .objectPath("/org/mpris/MediaPlayer2/TrackList/NoTrack"), .int64(0))
                #expect(player.nowPlayingItem as? MediaItem == items[0])
                #expect(player.currentPlaybackTime == microseconds(500_000))

                // Seek: relative, clamped to zero below; Int64.min saturates to zero.
                try send("Seek", .int64(-200_000))
                #expect(player.currentPlaybackTime == microseconds(300_000))
                try send("Seek", .int64(.min))
                #expect(player.currentPlaybackTime == .zero)
                #expect(player.nowPlayingItem as? MediaItem == items[0])
                try send("Seek", .int64(750_000))
                #expect(player.currentPlaybackTime == microseconds(750_000))
                // Past the length it acts as Next; Int64.max saturates instead of trapping.
                try send("Seek", .int64(.max))
                #expect(player.nowPlayingItem as? MediaItem == items[1])
                #expect(player.currentPlaybackTime == .zero)
                // The first item's ID is stale now.
                try send("SetPosition", id(items[0]), .int64(100_000))
                #expect(player.nowPlayingItem as? MediaItem == items[1])
                #expect(player.currentPlaybackTime == .zero)
                try send("SetPosition", id(items[1]), .int64(1_000_000))
                #expect(player.currentPlaybackTime == microseconds(1_000_000))
                try send("Seek", .int64(-1_000_000))
                #expect(player.currentPlaybackTime == .zero)
                #expect(player.nowPlayingItem as? MediaItem == items[1])

                // playerctl: an absolute position (SetPosition with the track ID
                // it read), and the largest relative one it can send.
                if MPRISServerTests.playerctlAvailable {
                    let p = "--player=backbeat.game"
                    try playerctl(bus, p, "position", "0.25")
                    try await eventually("playerctl's SetPosition arrives") {
                        player.currentPlaybackTime == microseconds(250_000)
                    }
                    try playerctl(bus, p, "position", "9223372036854+")
                    try await eventually("a seek past the end acts as Next") {
                        player.nowPlayingItem as? MediaItem == items[2]
                    }
                    publication.adapter.flush()
                    #expect(player.currentPlaybackTime == .zero)
                }
                // Still answering.
                #expect(try position() == player.currentPlaybackTime.converted(to: 1_000_000).value)
            }
        }
    }

    @Test func publishingWithoutABusIsATypedError() throws {
        try withOfflineEngine { engine in
            let player = try MusicPlayer.application(for: engine)
            let none = DesktopEnvironment(session: nil, resolvedAddress: nil)
            #expect { try none.publish(player, name: "x") } throws: { ($0 as? BackbeatError)?.code == .noDesktopBus }
        }
    }
}
