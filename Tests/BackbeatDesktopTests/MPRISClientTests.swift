import Backbeat
import BackbeatDesktop
import BackbeatSupport
import BackbeatTestFixtures
import Foundation
import Testing

@testable import BackbeatDesktop

/// Puts an MPRIS object on `connection` under `org.mpris.MediaPlayer2.<name>`.
func serveMPRIS(on connection: DBusConnection, name: String, _ handler: @escaping @Sendable (DBusMessage) -> DBusReply)
    throws
{
    connection.export(path: DBusNames.mprisPath, handler)
    _ = try connection.call(.bus("RequestName", [.string(DBusNames.mprisPrefix + name), .uint32(4)]))
}

@Suite(.serialized) struct MPRISClientTests {
    @Test(.enabled(if: MPVPlayer.isAvailable)) func followsMPVThroughSignals() async throws {
        try await PrivateBus.with { bus in
            try await withTemporaryDirectoryAsync { dir in
                let first = dir.appendingPathComponent("first.ogg")
                let second = dir.appendingPathComponent("second.ogg")
                try await writeTaggedSong(to: first, title: "First Light", artist: "The Testers", album: "Bus Rides")
                try await writeTaggedSong(to: second, title: "Second Wind", artist: "The Testers", album: "Bus Rides")
                let mpv = try MPVPlayer(bus: bus, files: [first, second])
                defer { mpv.stop() }
                let connection = try DBusConnection.open(address: bus.address)
                defer { connection.close() }
                let client = try MPRISClient(connection: connection)
                try await eventually("mpv plays First Light") {
                    client.player(named: "mpv")?.isPlaying == true
                        && client.player(named: "mpv")?.nowPlaying?.title == "First Light"
                }
                let mpvState = try #require(client.player(named: "mpv"))
                #expect(mpvState.nowPlaying?.artist == "The Testers")
                #expect(mpvState.nowPlaying?.albumTitle == "Bus Rides")
                #expect(abs((mpvState.nowPlaying?.playbackDuration?.seconds ?? 0) - taggedSongSeconds) < 0.1)
                #expect(mpvState.volume != nil)

                try client.send("Pause", to: mpvState.busName)
                try await eventually("the pause arrives as a signal") {
                    client.player(named: "mpv")?.playbackStatus == "Paused"
                }
                try client.send("Play", to: mpvState.busName)
                try await eventually("the play arrives as a signal") { client.player(named: "mpv")?.isPlaying == true }
                try client.send("Next", to: mpvState.busName)
                try await eventually("Next moves to Second Wind") {
                    client.player(named: "mpv")?.nowPlaying?.title == "Second Wind"
                }
                #expect(try client.readPosition(of: mpvState.busName) >= 0)

                mpv.stop()
                try await eventually("mpv vanishes when it quits") { client.player(named: "mpv") == nil }
            }
        }
    }

    @Test func malformedMetadataIsReadLenientlyOrSkipped() async throws {
        try await PrivateBus.with { bus in
            let hostile = try DBusConnection.open(address: bus.address)
            defer { hostile.close() }
            try serveMPRIS(on: hostile, name: "hostile") { call in
                guard call.interface == DBusNames.properties, call.member == "GetAll" else {
                    return .unknownMethod(call)
                }
                if call.body.first?.string == DBusNames.mprisRoot { return .values([.string("not a dictionary")]) }
                return .values([
                    .dictionary([
                        "PlaybackStatus": .int32(7),
                        "Volume": .string("loud"),
                        "Metadata": .dictionary([
                            "xesam:title": .int32(5), "xesam:artist": .array(element: "i", [.int32(1)]),
                            "mpris:length": .string("long"), "xesam:album": .string("Readable"),
                            "mpris:artUrl": .structure([.string("x")]),
                        ]),
                    ])
                ])
            }
            let connection = try DBusConnection.open(address: bus.address)
            defer { connection.close() }
            let client = try MPRISClient(connection: connection)
            let player = try #require(client.player(named: "hostile"))
            #expect(player.playbackStatus == nil && player.volume == nil)
            #expect(player.nowPlaying == NowPlayingInfo(albumTitle: "Readable"), "the one readable field survives")
            #expect(player.publicValue.playbackStatus == .stopped)

            hostile.emitSignal(
                path: DBusNames.mprisPath, interface: DBusNames.properties, member: "PropertiesChanged",
                arguments: [.string(DBusNames.mprisPlayer), .string("garbage")])
            hostile.emitSignal(
                path: DBusNames.mprisPath, interface: DBusNames.properties, member: "PropertiesChanged",
                arguments: [
                    .string(DBusNames.mprisPlayer), .dictionary(["PlaybackStatus": .string("Playing")]),
                    .strings([]),
                ])
            try await eventually("the good signal after the bad one applies") {
                client.player(named: "hostile")?.isPlaying == true
            }
            #expect(client.skips.contains { $0.contains("malformed PropertiesChanged") })
        }
    }

    /// NameOwnerChanged is believed only from the bus: a peer that sends one
    /// straight to us cannot make a player vanish (a paused or ducked player
    /// would then never be given back) nor invent an owner.
    @Test func aForgedNameOwnerChangedIsIgnored() async throws {
        try await PrivateBus.with { bus in
            let real = try DBusConnection.open(address: bus.address)
            defer { real.close() }
            try serveMPRIS(on: real, name: "real") { call in
                guard call.interface == DBusNames.properties, call.member == "GetAll" else {
                    return .unknownMethod(call)
                }
                return .values([.dictionary(["PlaybackStatus": .string("Playing")])])
            }
            let connection = try DBusConnection.open(address: bus.address)
            defer { connection.close() }
            let client = try MPRISClient(connection: connection)
            let player = try #require(client.player(named: "real"))
            #expect(player.owner == real.uniqueName)

            let hostile = try DBusConnection.open(address: bus.address)
            defer { hostile.close() }
            let forged: [DBusValue] = [.string(player.busName), .string(real.uniqueName), .string("")]
            hostile.emitSignal(
                path: "/org/freedesktop/DBus", interface: DBusNames.bus, member: "NameOwnerChanged",
                arguments: forged, destination: connection.uniqueName)
            try await eventually("the forged signal arrives and is set aside") {
                client.skips.contains { $0.contains("NameOwnerChanged not from the bus") }
            }
            #expect(client.player(named: "real")?.owner == real.uniqueName, "still there")

            // The bus's own word still counts: the player really leaves.
            real.close()
            try await eventually("the real player vanishes when it leaves") { client.player(named: "real") == nil }
        }
    }

    @Test func playersThatHangOrVanishCostABoundedWait() async throws {
        try await PrivateBus.with { bus in
            let silent = try DBusConnection.open(address: bus.address)
            defer { silent.close() }
            try serveMPRIS(on: silent, name: "silent") { _ in .noReply }
            let vanishing = try DBusConnection.open(address: bus.address)
            let called = LockedValueBox(false)
            try serveMPRIS(on: vanishing, name: "vanishing") { call in
                if call.member == "GetAll" {
                    return call.body.first?.string == DBusNames.mprisPlayer
                        ? .values([.dictionary(["PlaybackStatus": .string("Playing")])]) : .values([.dictionary([:])])
                }
                called.withLockedValue { $0 = true }
                return .noReply
            }
            let connection = try DBusConnection.open(address: bus.address)
            defer { connection.close() }
            let client = try MPRISClient(connection: connection, timeout: .milliseconds(300))
            #expect(client.player(named: "silent") == nil, "a player that never answers GetAll is skipped")
            #expect(client.skips.contains { $0.contains("timed out") })
            #expect(client.player(named: "vanishing")?.isPlaying == true)

            #expect(throws: BackbeatError.self) { try client.send("Play", to: DBusNames.mprisPrefix + "silent") }
            do {
                try client.send("Play", to: DBusNames.mprisPrefix + "silent")
            } catch let error as BackbeatError {
                #expect(error.code == .desktopCallTimedOut)
            }

            // The vanishing player quits while our call waits for it.
            let outcome = LockedValueBox<BackbeatError?>(nil)
            let caller = Thread {
                let next = DBusCall(
                    destination: DBusNames.mprisPrefix + "vanishing", path: DBusNames.mprisPath,
                    interface: DBusNames.mprisPlayer, member: "Next")
                do { _ = try connection.call(next, timeout: .seconds(30)) } catch let error as BackbeatError {
                    outcome.withLockedValue { $0 = error }
                } catch {}
            }
            caller.start()
            try await eventually("the call reaches the player") { called.withLockedValue { $0 } }
            vanishing.close()
            try await eventually("the call fails when the player goes") { outcome.withLockedValue { $0 } != nil }
            #expect(
                outcome.withLockedValue { $0?.code } == .desktopCallFailed,
                "\(String(describing: outcome.withLockedValue { $0 }))")
            try await eventually("the player is gone") { client.player(named: "vanishing") == nil }
        }
    }

    @Test func noBusIsATypedErrorNotAHang() {
        #expect(DBusConnection.sessionBusAddress(in: [:]) == nil)
        #expect(throws: BackbeatError.self) { try DBusConnection.open(address: "unix:path=/nonexistent/backbeat-bus") }
    }
}
