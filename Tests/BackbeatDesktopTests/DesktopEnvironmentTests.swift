import Backbeat
import BackbeatDesktop
import BackbeatSupport
import BackbeatTestFixtures
import Foundation
import Testing

@testable import BackbeatDesktop

@Suite(.serialized) struct DesktopEnvironmentTests {
    /// A session on a clock that does not move, its updates recorded.
    final class UpdateLog: Sendable {
        private let updates = LockedValueBox<[SessionUpdate]>([])
        func withLock<T>(_ body: ([SessionUpdate]) -> T) -> T { updates.withLockedValue { body($0) } }
        func append(_ update: SessionUpdate) { updates.withLockedValue { $0.append(update) } }
    }

    static func makeSession() -> (AudioSession, UpdateLog) {
        let session = AudioSession(clock: { .zero })
        let log = UpdateLog()
        session.observe { update in log.append(update) }
        return (session, log)
    }

    static func song(in dir: URL, _ title: String) async throws -> URL {
        let url = dir.appendingPathComponent("\(title).ogg")
        try await writeTaggedSong(to: url, title: title, artist: "The Testers", album: "Bus Rides")
        return url
    }

    @Test(.enabled(if: MPVPlayer.isAvailable)) func otherAudioFollowsMPVAndSoloAmbientPausesAndResumesIt() async throws
    {
        try await PrivateBus.with { bus in
            try await withTemporaryDirectoryAsync { dir in
                let song = try await Self.song(in: dir, "Loop")
                let mpv = try MPVPlayer(bus: bus, files: [song])
                defer { mpv.stop() }
                let (session, log) = Self.makeSession()
                let desktop = DesktopEnvironment(session: session, busAddress: bus.address)
                #expect(desktop.status == .connected(address: bus.address))
                let busName = DBusNames.mprisPrefix + "mpv"
                let status = { desktop.players.first { $0.name == "mpv" }?.playbackStatus }
                try await eventually("mpv counts as other audio") { session.isOtherAudioPlaying }
                // The session's observers hear of it after its state changes (they run on their own queue).
                try await eventually("the session reports mpv starting") {
                    log.withLock {
                        $0.contains { $0.cause == .event(.otherAudioStarted(name: "mpv"), source: .system) }
                    }
                }

                try desktop.client!.send("Pause", to: busName)
                try await eventually("pausing mpv stops other audio") { !session.isOtherAudioPlaying }
                try await eventually("the session reports mpv stopping") {
                    log.withLock { $0.last?.cause } == .event(.otherAudioStopped(name: "mpv"), source: .system)
                }
                try desktop.client!.send("Play", to: busName)
                try await eventually("playing again") { session.isOtherAudioPlaying }

                // Ambient: the game's soundtrack is held back while mpv plays, and back when it stops.
                try session.setCategory(.ambient)
                session.setActive(true)
                #expect(session.secondaryAudioShouldBeSilencedHint && session.decision.gameMusicMuted)
                #expect(status() == .playing, "ambient mixes: mpv goes on")
                try desktop.client!.send("Pause", to: busName)
                try await eventually("the soundtrack comes back live") { !session.decision.gameMusicMuted }
                try desktop.client!.send("Play", to: busName)
                try await eventually("held back again") { session.decision.gameMusicMuted }
                session.setActive(false)

                // soloAmbient: activating pauses mpv, deactivating resumes it.
                try session.setCategory(.soloAmbient)
                session.setActive(true)
                try await eventually("soloAmbient pauses mpv") { status() == .paused }
                session.setActive(false)
                try await eventually("deactivating resumes mpv") { status() == .playing }

                // Exactly those: the user quits the paused mpv and starts another, paused;
                // deactivating must not start the newcomer.
                session.setActive(true)
                try await eventually("paused again") { status() == .paused }
                mpv.stop()
                try await eventually("mpv has quit") { status() == nil }
                let newcomer = try MPVPlayer(bus: bus, files: [song], paused: true)
                defer { newcomer.stop() }
                try await eventually("the newcomer appears, paused") { status() == .paused }
                session.setActive(false)
                // A round trip to the newcomer after the restore: a Play sent by the restore would arrive first.
                _ = try desktop.client!.readPosition(of: busName)
                desktop.client!.flushDeliveries()
                #expect(status() == .paused, "a player Backbeat did not pause is not resumed")
            }
        }
    }

    @Test(.enabled(if: MPVPlayer.isAvailable)) func duckOthersLowersMPVVolumeAndRestoresIt() async throws {
        try await PrivateBus.with { bus in
            try await withTemporaryDirectoryAsync { dir in
                let mpv = try MPVPlayer(bus: bus, files: [try await Self.song(in: dir, "Loop")])
                defer { mpv.stop() }
                let (session, _) = Self.makeSession()
                let desktop = DesktopEnvironment(session: session, busAddress: bus.address)
                let volume = { desktop.players.first { $0.name == "mpv" }?.volume }
                try await eventually("mpv plays") { session.isOtherAudioPlaying && volume() != nil }
                let original = try #require(volume())
                try session.setCategory(.playback, options: .duckOthers)
                session.setActive(true)
                try await eventually("mpv is ducked") {
                    abs((volume() ?? 0) - original * MPRISOtherAudio.duckFactor) < 0.01
                }
                #expect(
                    desktop.players.first { $0.name == "mpv" }?.playbackStatus == .playing, "ducking does not pause")
                session.setActive(false)
                try await eventually("mpv's volume comes back") { abs((volume() ?? 0) - original) < 0.01 }
            }
        }
    }

    @Test func withoutABusEverythingElseWorks() async throws {
        let (session, log) = Self.makeSession()
        let desktop = DesktopEnvironment(session: session, resolvedAddress: nil)
        #expect(desktop.status == .noDesktopBus(reason: "DBUS_SESSION_BUS_ADDRESS is not set"))
        #expect(desktop.players.isEmpty && !desktop.isConnected)
        var events: [DesktopEvent] = []
        for await event in desktop.events() { events.append(event) }
        #expect(events == [.noDesktopBus(reason: "DBUS_SESSION_BUS_ADDRESS is not set")], "reported once, then done")
        session.setActive(true)
        session.post(.otherAudioStarted(name: "radio"))
        #expect(session.isOtherAudioPlaying && log.withLock { $0.count } == 2)

        let unreachable = DesktopEnvironment(session: session, busAddress: "unix:path=/nonexistent/backbeat-bus")
        guard case .noDesktopBus = unreachable.status else {
            Issue.record("an unreachable bus is no bus")
            return
        }
    }
}
