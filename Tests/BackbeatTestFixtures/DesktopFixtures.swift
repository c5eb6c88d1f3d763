import Backbeat
import BackbeatDesktop
import BackbeatLibrary
import BackbeatTesting
import Foundation
import Testing

/// A D-Bus session bus of the test's own, never the user's: started with
/// `dbus-daemon --session`, killed when the test ends.
package final class PrivateBus: Sendable {
    package let address: String
    private let process: Process

    package init() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--session", "--nofork", "--print-address=1", "--nopidfile"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !address.isEmpty else {
            process.terminate()
            throw BackbeatError(.noDesktopBus, operation: "start dbus-daemon", reason: "it printed no address")
        }
        self.process = process
        self.address = address
    }

    package func stop() {
        // SIGKILL: a child spawned from a test's thread inherits its blocked signals, SIGTERM among them.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }

    /// Runs `body` with a private bus, stopped afterwards.
    package static func with<T>(_ body: (PrivateBus) async throws -> T) async throws -> T {
        let bus = try PrivateBus()
        defer { bus.stop() }
        return try await body(bus)
    }
}

/// mpv playing files with the mpv-mpris plugin on a private bus: a real MPRIS
/// player nobody here wrote.
package final class MPVPlayer: Sendable {
    private let process: Process
    package static let plugin = ["/usr/lib/mpv-mpris/mpris.so", "/etc/mpv/scripts/mpris.so"]
        .first { FileManager.default.fileExists(atPath: $0) }

    package static var isAvailable: Bool {
        plugin != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/mpv")
    }

    package init(bus: PrivateBus, files: [URL], paused: Bool = false) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mpv")
        process.arguments =
            [
                "--no-config", "--script=\(Self.plugin ?? "")", "--ao=null", "--vo=null", "--no-terminal",
                "--idle=no", "--loop-playlist=inf", "--pause=\(paused ? "yes" : "no")",
            ] + files.map(\.path)
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
    }

    package func stop() {
        // SIGKILL: a child spawned from a test's thread inherits its blocked signals, SIGTERM among them.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

/// The length of the songs the desktop tests give mpv. mpv plays in real time
/// while a test may wait a long while for its turn (the whole suite shares two
/// cores, slower still under the thread sanitizer), so a song must outlast any
/// such wait: with 8-second songs mpv had moved on to the next song before a
/// starved test looked for the first.
package let taggedSongSeconds = 60.0

/// Writes a tagged Ogg Vorbis sine of `seconds` for a player to play.
package func writeTaggedSong(
    to url: URL, title: String, artist: String, album: String,
    seconds: Double = taggedSongSeconds
) async throws {
    let writer = try AssetWriter(outputURL: url, fileType: .oggVorbis, overwrite: true)
    writer.metadata = AudioTags(title: title, artist: artist, albumTitle: album)
    let input = AssetWriterInput(outputSettings: AudioFormat(sampleRate: 22_050, channelCount: 1), quality: 0.1)
    try writer.add(input)
    try writer.startWriting()
    try input.append(
        TestSignal.sine(frequency: 330, duration: MediaTime(seconds: seconds), sampleRate: 22_050, amplitude: 0.2))
    input.markAsFinished()
    try await writer.finishWriting()
}

/// Waits for `condition`, checking every 10 ms, at most `seconds`: the bound
/// on an event that should come, never a measure of how fast it comes.
@discardableResult
package func eventually(_ what: String, within seconds: Double = 30, _ condition: () throws -> Bool) async throws
    -> Bool
{
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    // The suite runs beside CPU-heavy tests on two cores: this task may wake
    // late, so look once more before calling it a failure.
    if try condition() { return true }
    Issue.record("never happened within \(seconds) s: \(what)")
    return false
}

/// Runs `playerctl` on the private bus and returns what it printed.
@discardableResult
package func playerctl(_ bus: PrivateBus, _ arguments: String...) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/playerctl")
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
    process.environment = environment
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
