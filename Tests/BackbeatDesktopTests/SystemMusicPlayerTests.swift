import Backbeat
import BackbeatDesktop
import BackbeatSupport
import BackbeatTestFixtures
import Foundation
import Testing

@testable import BackbeatDesktop

/// A list appended to from any thread.
final class LockedList<Element: Sendable>: Sendable {
    private let items = LockedValueBox<[Element]>([])
    func append(_ item: Element) { items.withLockedValue { $0.append(item) } }
    var all: [Element] { items.withLockedValue { $0 } }
}

/// Collects a system player's notifications, from a handler and from a stream.
final class SystemNotificationRecorder: Sendable {
    private let fromHandler = LockedList<SystemMusicPlayer.Event>()
    private let fromStream = LockedList<SystemMusicPlayer.Event>()
    private let task: Task<Void, Never>

    init(_ player: SystemMusicPlayer) {
        let stream = player.events()
        let fromStream = fromStream
        let fromHandler = fromHandler
        task = Task { for await n in stream { fromStream.append(n) } }
        player.observe { n in fromHandler.append(n) }
    }

    deinit { task.cancel() }

    var notifications: [SystemMusicPlayer.Event] { fromHandler.all }
    var streamed: [SystemMusicPlayer.Event] { fromStream.all }

    func saw(_ n: SystemMusicPlayer.Event) -> Bool { notifications.contains(n) && streamed.contains(n) }
    func sawTitle(_ title: String) -> Bool {
        let match: (SystemMusicPlayer.Event) -> Bool = {
            if case .nowPlayingItemDidChange(let item) = $0 { return item?.title == title }
            return false
        }
        return notifications.contains(where: match) && streamed.contains(where: match)
    }
}

@Suite(.serialized) struct SystemMusicPlayerTests {
    @Test(.enabled(if: MPVPlayer.isAvailable)) func readsFollowsAndDrivesMPV() async throws {
        try await PrivateBus.with { bus in
            try await withTemporaryDirectoryAsync { dir in
                let first = dir.appendingPathComponent("first.ogg")
                let second = dir.appendingPathComponent("second.ogg")
                let third = dir.appendingPathComponent("third.ogg")
                try await writeTaggedSong(to: first, title: "First Light", artist: "The Testers", album: "Bus Rides")
                try await writeTaggedSong(to: second, title: "Second Wind", artist: "The Testers", album: "Bus Rides")
                try await writeTaggedSong(to: third, title: "Third Act", artist: "Other Band", album: "Encore")
                let desktop = DesktopEnvironment(busAddress: bus.address)
                let system = try MusicPlayer.system(on: desktop)
                #expect(system.playerName == nil && system.playbackState == .stopped && system.nowPlayingItem == nil)
                #expect { try system.play() } throws: { ($0 as? BackbeatError)?.code == .playerNotFound }

                system.beginGeneratingPlaybackNotifications()
                let recorder = SystemNotificationRecorder(system)
                let mpv = try MPVPlayer(bus: bus, files: [first, second])
                defer { mpv.stop() }
                try await eventually("the system player follows mpv, playing First Light") {
                    system.playerName == "mpv" && system.playbackState == .playing
                        && system.nowPlayingItem?.title == "First Light"
                }
                let item = try #require(system.nowPlayingItem)
                #expect(item.artist == "The Testers" && item.albumTitle == "Bus Rides")
                #expect(abs((item.playbackDuration?.seconds ?? 0) - taggedSongSeconds) < 0.1)
                #expect(item.assetURL?.lastPathComponent == "first.ogg" || item.assetURL == nil)
                try await eventually("notifications say it plays First Light") {
                    recorder.saw(.playbackStateDidChange(.playing)) && recorder.sawTitle("First Light")
                }

                try system.pause()
                try await eventually("the pause comes back as state and notification") {
                    system.playbackState == .paused && recorder.saw(.playbackStateDidChange(.paused))
                }
                try system.seek(to: MediaTime(seconds: 5))
                try await eventually("the seek lands at 5 s") { abs(try system.currentPlaybackTime.seconds - 5) < 0.25 }
                try system.play()
                try await eventually("playing again") { system.playbackState == .playing }

                try system.skipToNextItem()
                try await eventually("next is Second Wind, in state and notifications") {
                    system.nowPlayingItem?.title == "Second Wind" && recorder.sawTitle("Second Wind")
                }
                try system.skipToPreviousItem()
                try await eventually("previous is First Light again") { system.nowPlayingItem?.title == "First Light" }

                try system.setRepeatMode(.one)
                try await eventually("LoopStatus Track") { system.repeatMode == .one }
                try system.setRepeatMode(.none)
                try await eventually("LoopStatus None") { system.repeatMode == MusicPlayer.RepeatMode.none }
                try system.setShuffleMode(.songs)
                try await eventually("Shuffle on") { system.shuffleMode == .songs }
                // (Not turned off again: turning mpv-mpris's shuffle off ended mpv when this was written.)
                #expect { try system.setShuffleMode(.albums) } throws: {
                    ($0 as? BackbeatError)?.code == .unsupportedByPlayer
                }
                try system.setVolume(0.5)
                try await eventually("the volume and its notification") {
                    system.volume.map { abs($0 - 0.5) < 0.01 } == true
                        && recorder.notifications.contains {
                            if case .volumeDidChange(let v) = $0 { abs(v - 0.5) < 0.01 } else { false }
                        }
                }

                // mpv-mpris has no TrackList: one URI opens, a queue is refused in so many words.
                #expect(system.target()?.hasTrackList == false)
                #expect { try system.setQueue(urls: [first, second]) } throws: {
                    ($0 as? BackbeatError)?.code == .unsupportedByPlayer
                }
                #expect { try system.setQueue(urls: []) } throws: { ($0 as? BackbeatError)?.code == .invalidArgument }
                try system.setQueue(urls: [third])
                try await eventually("OpenUri plays Third Act") {
                    system.nowPlayingItem?.title == "Third Act" && system.nowPlayingItem?.artist == "Other Band"
                }

                // Its state is mpv's own: a second system player sees the same, and the game's end changes nothing.
                let another = try MusicPlayer.system(on: desktop, named: "mpv")
                #expect(another.nowPlayingItem?.title == "Third Act")
                let named = try MusicPlayer.system(on: desktop, named: "vlc")
                #expect { try named.play() } throws: { ($0 as? BackbeatError)?.code == .playerNotFound }

                // After the end of notifications, changes are no longer reported.
                system.endGeneratingPlaybackNotifications()
                system.flushNotifications()
                let count = recorder.notifications.count
                try system.pause()
                try await eventually("paused") { system.playbackState == .paused }
                system.flushNotifications()
                #expect(recorder.notifications.count == count)

                mpv.stop()
                try await eventually("mpv is gone") { system.playerName == nil }
                #expect { try system.skipToNextItem() } throws: { ($0 as? BackbeatError)?.code == .playerNotFound }
                #expect(throws: BackbeatError.self) { _ = try system.currentPlaybackTime }
            }
        }
    }

    @Test func aPlayerThatVanishesBetweenChoosingAndCallingIsATypedError() async throws {
        try await PrivateBus.with { bus in
            let desktop = DesktopEnvironment(busAddress: bus.address)
            let system = try MusicPlayer.system(on: desktop, named: "fleeting")

            // It quits while our Play waits for its answer.
            let fleeting = try DBusConnection.open(address: bus.address)
            let called = LockedValueBox(false)
            try serveMPRIS(on: fleeting, name: "fleeting") { call in
                if call.member == "GetAll" {
                    return call.body.first?.string == DBusNames.mprisPlayer
                        ? .values([.dictionary(["PlaybackStatus": .string("Paused")])]) : .values([.dictionary([:])])
                }
                called.withLockedValue { $0 = true }
                return .noReply
            }
            try await eventually("the system player finds it") { system.playerName == "fleeting" }
            let outcome = LockedValueBox<BackbeatError?>(nil)
            let caller = Thread {
                do { try system.play() } catch let error as BackbeatError {
                    outcome.withLockedValue { $0 = error }
                } catch {}
            }
            caller.start()
            try await eventually("Play reaches it") { called.withLockedValue { $0 } }
            fleeting.close()
            try await eventually("the call ends when it goes") { outcome.withLockedValue { $0 } != nil }
            #expect(
                outcome.withLockedValue { $0?.code } == .playerNotFound,
                "\(String(describing: outcome.withLockedValue { $0 }))")

            // It comes back and quits again: a call made after it left, before the
            // bus has told us, is the same typed error (or the player is already gone).
            let again = try DBusConnection.open(address: bus.address)
            try serveMPRIS(on: again, name: "fleeting") { call in
                call.member == "GetAll" ? .values([.dictionary([:])]) : .noReply
            }
            try await eventually("it is back") { system.playerName == "fleeting" }
            again.close()
            #expect { try system.skipToNextItem() } throws: { ($0 as? BackbeatError)?.code == .playerNotFound }
        }
    }

    /// No player with a TrackList is installed here, so a small MPRIS peer
    /// stands in for one, recording what it is asked.
    @Test func aQueueGoesToThePlayersTrackListInOrder() async throws {
        try await PrivateBus.with { bus in
            let listed = try DBusConnection.open(address: bus.address)
            defer { listed.close() }
            let calls = LockedList<String>()
            try serveMPRIS(on: listed, name: "listed") { call in
                switch (call.member, call.body.first?.string, call.body.count > 1 ? call.body[1].string : nil) {
                case ("GetAll"?, DBusNames.mprisPlayer?, _):
                    return .values([.dictionary(["PlaybackStatus": .string("Stopped")])])
                case ("GetAll"?, _, _):
                    return .values([.dictionary(["HasTrackList": .bool(true), "Identity": .string("Listed")])])
                case ("Get"?, _, "SupportedUriSchemes"?):
                    return .values([.variant(.strings(["file", "https"]))])
                case ("Get"?, _, "Tracks"?):
                    return .values([.variant(.array(element: "o", [.objectPath("/old/1"), .objectPath("/old/2")]))])
                case ("RemoveTrack"?, _, _):
                    calls.append("remove \(call.body.first?.string ?? "?")")
                    return .ok
                case ("AddTrack"?, _, _):
                    calls.append("add \(call.body.first?.string ?? "?") current=\(call.body.last?.bool ?? false)")
                    return .ok
                default:
                    return .unknownMethod(call)
                }
            }
            let desktop = DesktopEnvironment(busAddress: bus.address)
            let system = try MusicPlayer.system(on: desktop, named: "Listed")
            try await eventually("the player is seen") { system.playerName == "listed" }
            let a = URL(fileURLWithPath: "/music/a.ogg")
            let b = URL(string: "https://example.com/b.ogg")!
            try system.setQueue(urls: [a, b])
            #expect(
                calls.all == [
                    "remove /old/1", "remove /old/2",
                    "add https://example.com/b.ogg current=false", "add file:///music/a.ogg current=true",
                ])
            #expect { try system.setQueue(urls: [URL(string: "rtsp://example.com/x")!]) } throws: {
                ($0 as? BackbeatError)?.code == .unsupportedByPlayer
            }
            #expect { try system.play() } throws: { ($0 as? BackbeatError)?.code == .unsupportedByPlayer }
        }
    }

    /// A followed player may report any Position and Length: the extremes of
    /// Int64 and negative values are bounded, and seeking from them sends
    /// saturated values instead of trapping.
    @Test func aPlayerReportingExtremePositionsAndLengthsIsBounded() async throws {
        try await PrivateBus.with { bus in
            let desktop = DesktopEnvironment(busAddress: bus.address)
            var peers: [DBusConnection] = []
            defer { for peer in peers { peer.close() } }
            let reported = LockedValueBox<Int64>(.min)
            let calls = LockedList<String>()
            for (name, trackID) in [("liar", "/liar/track/1"), ("anonymous", nil)] {
                let peer = try DBusConnection.open(address: bus.address)
                peers.append(peer)
                var metadata: [String: DBusValue] = ["xesam:title": .string(name), "mpris:length": .int64(.max)]
                if let trackID { metadata["mpris:trackid"] = .objectPath(trackID) }
                let properties: [String: DBusValue] = [
                    "PlaybackStatus": .string("Playing"), "CanSeek": .bool(true), "Metadata": .dictionary(metadata),
                    "Position": .int64(.min),
                ]
                try serveMPRIS(on: peer, name: name) { call in
                    switch (call.member, call.body.count > 1 ? call.body[1].string : nil) {
                    case ("GetAll"?, _):
                        return .values([
                            .dictionary(call.body.first?.string == DBusNames.mprisPlayer ? properties : [:])
                        ])
                    case ("Get"?, "Position"?):
                        return .values([.variant(.int64(reported.withLockedValue { $0 }))])
                    case ("SetPosition"?, _):
                        calls.append(
                            "\(name) SetPosition \(call.body.first?.string ?? "?") \(call.body.last?.int64.map(String.init) ?? "?")"
                        )
                        return .ok
                    case ("Seek"?, _):
                        calls.append("\(name) Seek \(call.body.first?.int64.map(String.init) ?? "?")")
                        return .ok
                    default:
                        return .unknownMethod(call)
                    }
                }
            }
            let liar = try MusicPlayer.system(on: desktop, named: "liar")
            let anonymous = try MusicPlayer.system(on: desktop, named: "anonymous")
            try await eventually("both players are seen") {
                liar.playerName == "liar" && anonymous.playerName == "anonymous"
            }
            // A length of Int64.max µs is kept as it is (about 292,000 years) and negates without trapping.
            let length = try #require(liar.nowPlayingItem?.playbackDuration)
            #expect(length == MediaTime(value: .max, timescale: 1_000_000))
            #expect(-length == MediaTime(value: -.max, timescale: 1_000_000))

            // Position Int64.min (and any negative report) reads as zero.
            #expect(try liar.currentPlaybackTime == .zero)
            #expect(try -liar.currentPlaybackTime == .zero)
            reported.withLockedValue { $0 = -5 }
            #expect(try anonymous.currentPlaybackTime == .zero)
            reported.withLockedValue { $0 = .max }
            #expect(try liar.currentPlaybackTime == MediaTime(value: .max, timescale: 1_000_000))

            // With a track ID: SetPosition, the target saturated and clamped to zero.
            try liar.seek(to: MediaTime(seconds: .infinity))
            try liar.seek(to: MediaTime(value: .min, timescale: 1))
            try liar.seek(to: MediaTime(value: .max, timescale: 1))
            // Without one: a relative Seek from the reported position, saturated both ways.
            reported.withLockedValue { $0 = .min }
            try anonymous.seek(to: MediaTime(value: .max, timescale: 1))
            reported.withLockedValue { $0 = .max }
            try anonymous.seek(to: .zero)
            try anonymous.seek(to: MediaTime(value: .min, timescale: 1_000_000))
            let maxSeconds = MediaTime(seconds: .infinity).converted(to: 1_000_000).value
            #expect(
                calls.all == [
                    "liar SetPosition /liar/track/1 \(maxSeconds)",
                    "liar SetPosition /liar/track/1 0",
                    "liar SetPosition /liar/track/1 \(Int64.max)",
                    "anonymous Seek \(Int64.max)",
                    "anonymous Seek \(-Int64.max)",
                    "anonymous Seek \(-Int64.max)",
                ])
        }
    }

    @Test func withoutABusTheSystemPlayerIsATypedError() {
        let none = DesktopEnvironment(session: nil, resolvedAddress: nil)
        #expect { _ = try MusicPlayer.system(on: none) } throws: { ($0 as? BackbeatError)?.code == .noDesktopBus }
    }
}
