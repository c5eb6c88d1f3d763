import Backbeat
import BackbeatDesktop
import BackbeatLibrary
import DrumpadCore
import Foundation
import Synchronization

// The drum pad demo's shell: options, the engine, the library, stdin or a
// script, the terminal, signals. Everything the demo does is in DrumpadCore.

func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("drumpad: \(message)\n".utf8))
    exit(status)
}

let options: DrumpadOptions
do {
    options = try DrumpadOptions(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    fail("\(error)\n\(DrumpadOptions.usage)", status: 2)
}
if options.showHelp {
    print(DrumpadOptions.usage)
    exit(0)
}
guard let assets = options.assetsFolder() else {
    fail(
        "cannot find the demo's Assets folder (with Drums/ and Music/); run from the repository root or pass --assets DIR"
    )
}

// The sound libraries' messages: shown with --verbose, otherwise kept off the terminal.
if options.verbose {
    AudioEngine.libraryLogHandler = { line in FileHandle.standardError.write(Data("drumpad: \(line)\n".utf8)) }
}

/// Opens the sound device, or a WAV file when there is none (or one was asked for).
func openEngine() throws -> (AudioEngine, String) {
    if options.output == nil {
        do {
            AudioEngine.applicationName = "Backbeat drum pad"
            let engine = try AudioEngine(output: options.deviceOutput)
            let name = engine.deviceName.map { "the sound device \"\($0)\"" } ?? "the default sound device"
            print("Playing through \(name).")
            return (engine, name)
        } catch let error as BackbeatError {
            print("No sound device (\(error.reason ?? "\(error.code)")); rendering to a WAV file instead.")
        }
    }
    let url = options.output ?? URL(fileURLWithPath: "out/drumpad.wav")
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    // At a terminal a person plays in real time, so the file fills at the pace of a device.
    return (
        try AudioEngine(output: .file(url: url, pacing: interactive ? .realTime : .asFastAsPossible)),
        options.output?.path ?? "out/drumpad.wav"
    )
}

/// Scans the music folder into an in-memory index; nil (with a line saying why) when it cannot.
func openLibrary(_ folder: URL) -> MediaLibrary? {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
        print("library: \(folder.path) is not a folder; music commands have no songs")
        return nil
    }
    do {
        let library = try MediaLibrary(roots: [folder], index: .inMemory)
        let report = try library.scan()
        if !report.skipped.isEmpty { print("library: \(report.skipped.count) files skipped in \(folder.path)") }
        return library
    } catch {
        print("library: \(error)")
        return nil
    }
}

let interactive = options.script == nil && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
let (engine, destination): (AudioEngine, String)
do { (engine, destination) = try openEngine() } catch { fail("\(error)") }

// --monitor: live telemetry on a private socket; the line says what to pass to `backbeat monitor`.
if options.monitor {
    do {
        let socket = try engine.startMonitoring()
        print("monitor: watch with `backbeat monitor \(getpid())` (socket \(socket.path))")
        // A script or test reading the demo through a pipe needs the PID now, not at exit.
        fflush(nil)
    } catch {
        print("monitor: \(error)")
    }
}
// --capture: from the engine's opening, so a capture of a file render replays to the same bits.
if let capture = options.capture {
    do {
        _ = try engine.startCapture(to: capture)
        print("capture: recording to \(capture.path); `backbeat replay \(capture.path) --output out.wav` renders it")
    } catch {
        engine.shutdown()
        fail("\(error)")
    }
}
let library = openLibrary(options.library ?? assets.appendingPathComponent("Music", isDirectory: true))

let terminal = interactive ? Terminal() : nil

// The engine's application music player; without one (no source left on the device) the pads still play.
let music: ApplicationMusic?
do {
    music = try ApplicationMusic(engine: engine, library: library)
} catch {
    print("music: \(error); the music commands are off")
    music = nil
}

let demo: Drumpad
do {
    demo = try Drumpad(
        engine: engine, drums: assets.appendingPathComponent("Drums", isDirectory: true), library: library,
        music: music, quantize: options.quantize, seed: options.seed,
        say: { line in if !interactive { print(line) } })
} catch {
    engine.shutdown()
    fail("\(error)")
}

// --mpris: the music player on the desktop bus, so media keys and playerctl drive it, and
// the desktop's players are the session's other audio: a playback or solo-ambient session
// pauses the user's player and gives it back at the end (`env other-audio` still scripts more).
let desktop = options.mpris ? DesktopEnvironment(session: engine.session) : nil
let publication: DesktopPublication? = {
    guard let desktop, let player = music?.player else {
        if options.mpris { print("mpris: there is no music player to publish") }
        return nil
    }
    if case .noDesktopBus(let reason) = desktop.status {
        print("mpris: no desktop bus (\(reason)); the music player is not published")
        return nil
    }
    do {
        let publication = try desktop.publish(player, name: "drumpad", identity: "Backbeat drum pad")
        print("mpris: the music player is on the desktop bus as \(publication.busName)")
        return publication
    } catch {
        print("mpris: \(error)")
        return nil
    }
}()

/// The last words, once, whoever ends the demo (end of input, quit, or a signal).
let ended = Atomic<Bool>(false)
func end() -> Never {
    demo.finish()
    if ended.exchange(true, ordering: .acquiringAndReleasing) {
        // Another thread is already saying goodbye; it exits.
        while true { pause() }
    }
    terminal?.restore()
    // The session ends with the demo: the user's player it paused plays again.
    engine.session.setActive(false)
    publication?.unpublish()
    desktop?.disconnect()
    let seconds = demo.status.time.seconds
    print("Sound went to \(destination) (\(String(format: "%.2f", seconds)) s of engine time).")
    exit(0)
}

// SIGINT and SIGTERM fade out like quit: dispatch sources, no code in a signal handler.
var signalSources: [any DispatchSourceSignal] = []
for signalNumber in [SIGINT, SIGTERM] {
    signal(signalNumber, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
    source.setEventHandler {
        demo.requestQuit()
        end()
    }
    source.resume()
    signalSources.append(source)
}

if let terminal {
    terminal.run(demo)
} else if let script = options.script {
    do {
        // Bytes decoded lossily: a script with invalid UTF-8 still runs, its bad lines refused one by one.
        let text = String(decoding: try Data(contentsOf: script), as: UTF8.self)
        demo.run(text.split(separator: "\n", omittingEmptySubsequences: false).lazy.map(String.init))
    } catch {
        print("drumpad: cannot read the script \(script.path): \(error.localizedDescription)")
    }
} else {
    demo.run(AnySequence { AnyIterator { readLine(strippingNewline: true) } })
}
end()
