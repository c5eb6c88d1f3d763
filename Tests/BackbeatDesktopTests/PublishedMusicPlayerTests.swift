import Foundation
import Testing
import Backbeat
@testable import BackbeatDesktop
import BackbeatLibrary
import BackbeatDesktop
import BackbeatTesting
import BackbeatTestFixtures

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

    @Test func publishingWithoutABusIsATypedError() throws {
        try withOfflineEngine { engine in
            let player = try MusicPlayer.application(for: engine)
            let none = DesktopEnvironment(session: nil, resolvedAddress: nil)
            #expect { try none.publish(player, name: "x") } throws: { ($0 as? BackbeatError)?.code == .noDesktopBus }
        }
    }
}
