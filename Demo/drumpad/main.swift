import Backbeat
import DrumpadCore
import Foundation

// The drum pad demo. Reads commands from stdin (or --script FILE), one per line,
// and plays to the sound device, or to a WAV file when there is none.

struct Options {
    var script: String?
    var output: String?

    init(_ arguments: [String]) throws {
        var rest = arguments.dropFirst()
        while let arg = rest.popFirst() {
            switch arg {
            case "--script": script = rest.popFirst()
            case "--output": output = rest.popFirst()
            default: throw DemoError("unknown option \(arg); usage: drumpad [--script FILE] [--output FILE.wav]")
            }
        }
    }
}

struct DemoError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Opens the device, or a WAV file when no device exists (or one was asked for).
func openEngine(_ options: Options) throws -> (AudioEngine, String) {
    if options.output == nil {
        do {
            let engine = try AudioEngine(output: .device())
            return (engine, "the default sound device")
        } catch let error as BackbeatError {
            print("No sound device (\(error.reason ?? "\(error.code)")); rendering to a WAV file instead.")
        }
    }
    let path = options.output ?? "out/drumpad.wav"
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    return (try AudioEngine(output: .file(url: url)), url.path)
}

func readLines(_ options: Options) throws -> AnySequence<String> {
    if let script = options.script {
        // Bytes decoded lossily: a script with invalid UTF-8 still runs, its bad lines refused one by one.
        let data = try Data(contentsOf: URL(fileURLWithPath: script))
        let text = String(decoding: data, as: UTF8.self)
        return AnySequence(text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }
    return AnySequence(AnyIterator { readLine(strippingNewline: true) })
}

do {
    let options = try Options(CommandLine.arguments)
    let (engine, destination) = try openEngine(options)
    lines: for line in try readLines(options) {
        let command: DrumpadCommand?
        do {
            command = try DrumpadCommand.parse(line)
        } catch {
            print(error)
            continue
        }
        switch command {
        case nil: continue
        case let .wait(time):
            if case .file = engine.output { try engine.advance(by: time) }
            else { Thread.sleep(forTimeInterval: time.seconds) }
        case .quit: break lines
        case let other?: print("not yet wired: \(other)")
        }
    }
    let seconds = engine.currentTime.seconds
    engine.shutdown()
    print("Sound went to \(destination) (\(String(format: "%.2f", seconds)) s of engine time).")
} catch {
    print("drumpad: \(error)")
    exit(1)
}
