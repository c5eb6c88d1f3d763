import ArgumentParser
import Backbeat
import BackbeatDesktop
import Foundation

/// `backbeat players`: the MPRIS media players on the desktop bus.
struct PlayersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "players",
        abstract: "List the media players on the desktop bus (MPRIS) with their status and now-playing title.")

    @Flag(help: "Print JSON: one array, or with --watch one object per line for each change.")
    var json = false

    @Flag(help: "Keep running and print every change (players appearing, changing, leaving).")
    var watch = false

    @Option(help: "A D-Bus address instead of DBUS_SESSION_BUS_ADDRESS.")
    var bus: String?

    func run() async throws {
        let desktop = DesktopEnvironment(busAddress: bus)
        if case .noDesktopBus(let reason) = desktop.status {
            // Not an error: a machine without a desktop has no players.
            if json {
                print(watch ? #"{"event":"noDesktopBus","reason":\#(quoted(reason))}"# : "[]")
            } else {
                print("no desktop bus (\(reason))")
            }
            return
        }
        let players = desktop.players
        if json {
            print(String(decoding: try encoder(pretty: !watch).encode(players), as: UTF8.self))
        } else if players.isEmpty {
            print("no media players")
        } else {
            for player in players { print(line(player)) }
        }
        guard watch else { return }
        for await event in desktop.events() {
            if json {
                print(String(decoding: try encoder(pretty: false).encode(JSONEvent(event)), as: UTF8.self))
            } else {
                switch event {
                case .noDesktopBus(let reason): print("no desktop bus (\(reason))")
                case .playerAppeared(let p): print("+ " + line(p))
                case .playerChanged(let p): print("~ " + line(p))
                case .playerVanished(let name): print("- \(name)")
                }
            }
            fflush(nil)
        }
    }

    private func line(_ player: DesktopPlayer) -> String {
        var text = "\(player.name)\t\(player.playbackStatus.rawValue)"
        if let title = player.nowPlaying?.title { text += "\t\(title)" }
        if let artist = player.nowPlaying?.artist { text += " — \(artist)" }
        return text
    }

    private func quoted(_ s: String) -> String {
        String(decoding: (try? JSONEncoder().encode(s)) ?? Data("\"\"".utf8), as: UTF8.self)
    }

    private func encoder(pretty: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// One change as a JSON object: `{"event": "...", "player": {...}}`.
    private struct JSONEvent: Encodable {
        var event: String
        var player: DesktopPlayer?
        var name: String?
        var reason: String?

        init(_ event: DesktopEvent) {
            switch event {
            case .noDesktopBus(let reason):
                self.event = "noDesktopBus"
                self.reason = reason
            case .playerAppeared(let p):
                self.event = "appeared"
                player = p
                name = p.name
            case .playerChanged(let p):
                self.event = "changed"
                player = p
                name = p.name
            case .playerVanished(let n):
                self.event = "vanished"
                name = n
            }
        }
    }
}
