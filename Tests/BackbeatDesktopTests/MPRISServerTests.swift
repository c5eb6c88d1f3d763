import Backbeat
import BackbeatDesktop
import BackbeatSupport
import BackbeatTestFixtures
import Foundation
import Testing

@testable import BackbeatDesktop

/// A queue of tracks behind the server's protocol, to test the server alone
/// (the application music player is published in PublishedMusicPlayerTests).
final class QueueStandIn: MPRISPublishable {
    let tracks: [NowPlayingInfo]
    private struct State {
        var status = DesktopPlayer.Status.stopped
        var index = 0
        var commands: [MPRISCommand] = []
    }
    private let state = LockedValueBox(State())
    private let changes = EventBroadcast<Void>()

    init(tracks: [NowPlayingInfo]) { self.tracks = tracks }

    var status: DesktopPlayer.Status { state.withLockedValue { $0.status } }
    var index: Int { state.withLockedValue { $0.index } }

    var mprisState: MPRISPublishedState {
        state.withLockedValue { s in
            MPRISPublishedState(
                status: s.status, nowPlaying: tracks[s.index], queueIndex: s.index,
                canGoNext: s.index + 1 < tracks.count, canGoPrevious: s.index > 0)
        }
    }

    func mprisControl(_ command: MPRISCommand) {
        state.withLockedValue { s in
            s.commands.append(command)
            switch command {
            case .play: s.status = .playing
            case .pause: s.status = .paused
            case .playPause: s.status = s.status == .playing ? .paused : .playing
            case .stop: s.status = .stopped
            case .next: s.index = min(s.index + 1, tracks.count - 1)
            case .previous: s.index = max(s.index - 1, 0)
            default: break
            }
        }
        changes.send(())
    }

    func mprisObserve(_ changed: @escaping @Sendable () -> Void) -> ObservationToken {
        changes.observe { changed() }
    }
}

@Suite(.serialized) struct MPRISServerTests {
    static let playerctlAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/playerctl")

    @Test(.enabled(if: playerctlAvailable)) func playerctlSeesAndControlsThePublishedPlayer() async throws {
        try await PrivateBus.with { bus in
            let desktop = DesktopEnvironment(busAddress: bus.address)
            let player = QueueStandIn(tracks: [
                NowPlayingInfo(
                    title: "Opening Theme", artist: "Backbeat Band", albumTitle: "Level One",
                    playbackDuration: MediaTime(seconds: 93),
                    artworkURL: URL(fileURLWithPath: "/tmp/cover one.png")),
                NowPlayingInfo(
                    title: "Boss Fight", artist: "Backbeat Band", albumTitle: "Level One",
                    playbackDuration: MediaTime(seconds: 120)),
            ])
            try desktop.publish(player, name: "test game", identity: "Test Game")
            #expect(try playerctl(bus, "-l").split(separator: "\n").contains("backbeat.test_game"))
            let p = "--player=backbeat.test_game"
            #expect(try playerctl(bus, p, "metadata", "title") == "Opening Theme")
            #expect(try playerctl(bus, p, "metadata", "artist") == "Backbeat Band")
            #expect(try playerctl(bus, p, "metadata", "album") == "Level One")
            #expect(try playerctl(bus, p, "metadata", "mpris:artUrl") == "file:///tmp/cover%20one.png")
            #expect(try playerctl(bus, p, "metadata", "mpris:length") == "93000000")
            #expect(try playerctl(bus, p, "status") == "Stopped")

            try playerctl(bus, p, "play-pause")
            #expect(player.status == .playing)
            #expect(try playerctl(bus, p, "status") == "Playing")
            try playerctl(bus, p, "play-pause")
            #expect(player.status == .paused)
            try playerctl(bus, p, "next")
            #expect(player.index == 1)
            #expect(try playerctl(bus, p, "metadata", "title") == "Boss Fight")
            try playerctl(bus, p, "previous")
            #expect(player.index == 0)
            try playerctl(bus, p, "stop")
            #expect(player.status == .stopped)

            // Backbeat's own client sees the change as a signal, and the game's own
            // player never counts as other audio.
            let watcher = try DBusConnection.open(address: bus.address)
            defer { watcher.close() }
            let client = try MPRISClient(connection: watcher)
            player.mprisControl(.play)
            try await eventually("PropertiesChanged reaches another client") {
                client.player(named: "backbeat.test_game")?.isPlaying == true
            }
            #expect(desktop.players.isEmpty)
        }
    }

    @Test func playersCommandListsThePublishedPlayer() async throws {
        try await PrivateBus.with { bus in
            let desktop = DesktopEnvironment(busAddress: bus.address)
            let player = QueueStandIn(tracks: [NowPlayingInfo(title: "Opening Theme", artist: "Backbeat Band")])
            try desktop.publish(player, name: "cli", identity: "CLI Game")
            player.mprisControl(.play)
            let r = try BackbeatTool.run(["players", "--json", "--bus", bus.address])
            #expect(r.status == 0, "\(r.stderr)")
            let players = try JSONDecoder().decode([DesktopPlayer].self, from: Data(r.stdout.utf8))
            #expect(players.map(\.name) == ["backbeat.cli"])
            #expect(players.first?.playbackStatus == .playing)
            #expect(players.first?.nowPlaying?.title == "Opening Theme")
            #expect(players.first?.identity == "CLI Game")
            let text = try BackbeatTool.run(["players", "--bus", bus.address])
            #expect(text.stdout.contains("backbeat.cli\tplaying\tOpening Theme — Backbeat Band"))
        }
    }

    @Test("A now-playing item whose file claims an absurd length publishes a saturated length, without trapping")
    func absurdLengthSaturates() {
        // An Ogg whose last granule claims about 2^62 frames at 48 kHz.
        let huge = NowPlayingInfo(title: "x", playbackDuration: MediaTime(value: 1 << 62, timescale: 48_000))
        let length = huge.metadata(defaultTrackID: "/org/backbeat/item/1")["mpris:length"]?.int64
        #expect(length == Int64.max, "microseconds saturate")
        let normal = NowPlayingInfo(title: "y", playbackDuration: MediaTime(seconds: 93))
        #expect(normal.metadata(defaultTrackID: "/org/backbeat/item/1")["mpris:length"]?.int64 == 93_000_000)
        // Read back from a peer: the length round-trips; a negative one is left out.
        #expect(
            NowPlayingInfo(metadata: ["mpris:length": .int64(93_000_000)])?.playbackDuration == MediaTime(seconds: 93))
        #expect(
            NowPlayingInfo(metadata: ["mpris:length": .int64(-1), "xesam:title": .string("z")])?.playbackDuration == nil
        )
    }

    @Test func aTakenNameIsATypedError() async throws {
        try await PrivateBus.with { bus in
            let desktop = DesktopEnvironment(busAddress: bus.address)
            let other = DesktopEnvironment(busAddress: bus.address)
            let player = QueueStandIn(tracks: [NowPlayingInfo(title: "x")])
            try desktop.publish(player, name: "same", identity: "One")
            #expect(throws: BackbeatError.self) { try other.publish(player, name: "same", identity: "Two") }
            let none = DesktopEnvironment(session: nil, resolvedAddress: nil)
            #expect(throws: BackbeatError.self) { try none.publish(player, name: "x", identity: "x") }
        }
    }
}
