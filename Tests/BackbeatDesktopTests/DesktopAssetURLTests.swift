import Backbeat
import BackbeatDesktop
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatDesktop

/// What the desktop is told about songs that are not loose files: an archive
/// entry is named by the archive's file and the entry, bytes in memory by
/// nothing, and neither is handed to another player as a file.
@Suite(.serialized) struct DesktopAssetURLTests {
    /// A game's own song type, over any asset.
    struct GameSong: MusicItem {
        let asset: AudioAsset
        let persistentID: UInt64
        let title: String
        var artist: String? { "Tester" }
        var albumTitle: String? { nil }
        var playbackDuration: MediaTime { MediaTime(seconds: 0.5) }
        static func == (a: Self, b: Self) -> Bool { a.persistentID == b.persistentID }
        func hash(into hasher: inout Hasher) { hasher.combine(persistentID) }
    }

    /// The same half-second WAV three ways: loose, as the entry `music/song b.wav` of
    /// `pack one.zip` (names with spaces), and as bytes in memory.
    static func songs(in dir: URL) throws -> (file: GameSong, entry: GameSong, memory: GameSong, zip: URL) {
        let music = dir.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        let wav = music.appendingPathComponent("song b.wav")
        let tone = TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.5), channels: 2)
        try Songs.write(tone.interleavedFloats, to: wav, channels: 2)
        let zip = dir.appendingPathComponent("pack one.zip")
        let r = try runTool("sh", ["-c", "cd '\(dir.path)' && zip -q -0 '\(zip.path)' 'music/song b.wav'"])
        #expect(r.status == 0, "zip: \(r.stderr)")
        let archive = try AudioArchive(url: zip)
        return (
            GameSong(asset: AudioAsset(url: wav), persistentID: 1, title: "Loose"),
            GameSong(asset: try archive.asset(path: "music/song b.wav"), persistentID: 2, title: "Packed"),
            GameSong(
                asset: AudioAsset(data: try Data(contentsOf: wav), name: "song.wav"), persistentID: 3, title: "Memory"),
            zip
        )
    }

    @Test("A published player's xesam:url is the file, the archive's file with the entry, or absent for memory")
    func publishedURLs() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/playerctl"), "playerctl reads the metadata")
        try await PrivateBus.with { bus in
            try await withTemporaryDirectoryAsync { dir in
                let (file, entry, memory, zip) = try Self.songs(in: dir)
                let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
                defer { engine.shutdown() }
                let player = try MusicPlayer.application(for: engine)
                player.setQueue(items: [file, entry, memory])
                let desktop = DesktopEnvironment(busAddress: bus.address)
                let publication = try desktop.publish(player, name: "packed", identity: "Packed Game")
                #expect(publication.isPublished)
                let p = "--player=backbeat.packed"
                func metadata() throws -> [String: String] {
                    // Lines of "player key value".
                    var fields: [String: String] = [:]
                    for line in try playerctl(bus, p, "metadata").split(separator: "\n") {
                        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
                        if parts.count == 3 { fields[String(parts[1])] = parts[2].trimmingCharacters(in: .whitespaces) }
                    }
                    return fields
                }
                try await eventually("the loose song is published") { try metadata()["xesam:title"] == "Loose" }
                let looseText = try #require(try metadata()["xesam:url"])
                let loose = try #require(URL(string: looseText))
                #expect(loose.isFileURL && loose.path == file.asset.url.path)

                try playerctl(bus, p, "next")
                try await eventually("the packed song is published") { try metadata()["xesam:title"] == "Packed" }
                let packed = try #require(try metadata()["xesam:url"])
                #expect(packed == "file://\(zip.path.replacingOccurrences(of: " ", with: "%20"))#music/song%20b.wav")
                let url = try #require(URL(string: packed))
                #expect(url.isFileURL && FileManager.default.fileExists(atPath: url.path), "the archive itself")
                #expect(URLComponents(string: packed)?.fragment == "music/song b.wav", "the entry, percent-decoded")

                try playerctl(bus, p, "next")
                try await eventually("the song in memory is published") { try metadata()["xesam:title"] == "Memory" }
                #expect(try metadata()["xesam:url"] == nil, "bytes in memory have no location to publish")
                #expect(try metadata()["mpris:trackid"] != nil)
            }
        }
    }

    @Test("The system player is never handed an archive entry or bytes in memory as a URL")
    func systemQueueRefusesGameBytes() async throws {
        try await PrivateBus.with { bus in
            try await withTemporaryDirectoryAsync { dir in
                let (file, entry, memory, zip) = try Self.songs(in: dir)
                let listed = try DBusConnection.open(address: bus.address)
                defer { listed.close() }
                let calls = LockedList<String>()
                // A player that claims to open any scheme: only Backbeat can refuse what it cannot open.
                try serveMPRIS(on: listed, name: "anything") { call in
                    switch (call.member, call.body.first?.string, call.body.count > 1 ? call.body[1].string : nil) {
                    case ("GetAll"?, DBusNames.mprisPlayer?, _):
                        return .values([.dictionary(["PlaybackStatus": .string("Stopped")])])
                    case ("GetAll"?, _, _):
                        return .values([.dictionary(["HasTrackList": .bool(true), "Identity": .string("Anything")])])
                    case ("Get"?, _, "SupportedUriSchemes"?):
                        return .values([.variant(.strings(["file", "zip", "memory", "source"]))])
                    case ("Get"?, _, "Tracks"?):
                        return .values([.variant(.array(element: "o", []))])
                    case ("AddTrack"?, _, _):
                        calls.append("add \(call.body.first?.string ?? "?")")
                        return .ok
                    default:
                        return .unknownMethod(call)
                    }
                }
                let desktop = DesktopEnvironment(busAddress: bus.address)
                let system = try MusicPlayer.system(on: desktop, named: "Anything")
                try await eventually("the player is seen") { system.playerName == "anything" }
                let packed = try #require(throws: BackbeatError.self) { try system.setQueue(items: [file, entry]) }
                #expect(packed.code == .invalidArgument)
                #expect(
                    packed.reason
                        == "\"Packed\" is an entry of the archive \(zip.path), which another player cannot open")
                let inMemory = try #require(throws: BackbeatError.self) { try system.setQueue(items: [memory]) }
                #expect(inMemory.code == .invalidArgument)
                #expect(
                    inMemory.reason
                        == "\"Memory\" is bytes inside the game (memory:///song.wav), which another player cannot open")
                #expect(calls.all.isEmpty, "nothing was queued")
                try system.setQueue(items: [file])
                #expect(calls.all == ["add \(file.asset.url.absoluteString)"])
            }
        }
    }
}
