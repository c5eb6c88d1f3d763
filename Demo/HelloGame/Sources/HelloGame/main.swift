// HelloGame: the smallest game on Backbeat. It opens an engine, starts a
// queue of background music, and plays a snare over it, four beats a second
// for a few seconds, then shuts down (the music fades out).
//
//     HelloGame out.wav        renders to a WAV file, as fast as it can
//     HelloGame --device       plays on the default output device
//
// Options: --assets DIR (the folder with Drums/ and Music/; default: the
// repository's Assets), --seconds N (default 4).

import Backbeat

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#endif

/// Prints `message` on standard error and exits with status 2.
func fail(_ message: String) -> Never {
    let line = "HelloGame: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(2)
}

// MARK: Arguments

var outputFile: URL?
var useDevice = false
var assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent()  // Sources/HelloGame
    .deletingLastPathComponent().deletingLastPathComponent()  // Demo/HelloGame
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Assets")
var seconds = 4.0
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--device":
        useDevice = true
    case "--assets":
        guard let path = arguments.popFirst() else { fail("--assets needs a folder") }
        assets = URL(fileURLWithPath: path)
    case "--seconds":
        guard let text = arguments.popFirst(), let value = Double(text), value > 0, value <= 3_600 else {
            fail("--seconds needs a number of seconds (0...3600)")
        }
        seconds = value
    case "-h", "--help":
        print("usage: HelloGame (OUTPUT.wav | --device) [--assets DIR] [--seconds N]")
        exit(0)
    default:
        guard !argument.hasPrefix("-"), outputFile == nil else { fail("unknown argument \(argument) (see --help)") }
        outputFile = URL(fileURLWithPath: argument)
    }
}
guard useDevice != (outputFile != nil) else { fail("give an output WAV file or --device (see --help)") }

// MARK: The game

do {
    let engine = try AudioEngine(output: outputFile.map { .file(url: $0) } ?? .device())
    let music = try QueuePlayer(
        engine: engine,
        items: [
            PlayerItem(url: assets.appendingPathComponent("Music/night-shift-01-sodium-lights.ogg")),
            PlayerItem(url: assets.appendingPathComponent("Music/night-shift-02-half-moon-drive.ogg")),
        ])
    music.volume = 0.6
    music.play()

    let snare = SoundEffect(contentsOf: assets.appendingPathComponent("Drums/snare.wav"), engine: engine)
    try await snare.preload()

    // Four snare hits a second, scheduled on engine time so they land on the beat.
    let start = engine.currentTime + MediaTime(seconds: 0.1)
    for n in 0..<Int(seconds * 4) {
        snare.play(
            at: start + MediaTime(seconds: 0.25 * Double(n)), volume: n % 4 == 0 ? 1 : 0.5, pan: n % 2 == 0 ? -0.3 : 0.3
        )
    }

    if useDevice {
        try await Task.sleep(for: .milliseconds(Int(seconds * 1_000) + 200))
    } else {
        try engine.advance(by: MediaTime(seconds: seconds + 0.2))
    }
    engine.shutdown()  // fades the music out, then completes the file
    if let outputFile {
        print("HelloGame: wrote \(outputFile.path)")
    }
} catch {
    fail("\(error)")
}
