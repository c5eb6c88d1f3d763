import Backbeat
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
        let text = try String(contentsOfFile: script, encoding: .utf8)
        return AnySequence(text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }
    return AnySequence(AnyIterator { readLine(strippingNewline: true) })
}

do {
    let options = try Options(CommandLine.arguments)
    let (engine, destination) = try openEngine(options)
    for raw in try readLines(options) {
        let line = raw.trimmingCharacters(in: .whitespaces)
        if line.isEmpty || line.hasPrefix("#") { continue }
        let words = line.split(separator: " ")
        switch words.first {
        case "wait":
            if words.count == 2, let seconds = Double(words[1]), seconds.isFinite, seconds >= 0 {
                if case .file = engine.output { try engine.advance(by: MediaTime(seconds: seconds)) }
                else { Thread.sleep(forTimeInterval: seconds) }
            } else {
                print("wait: expected a duration in seconds, got \"\(line.prefix(80))\"")
            }
        case "quit": break
        default: print("unknown command: \(line.prefix(80))")
        }
        if words.first == "quit" { break }
    }
    let seconds = engine.currentTime.seconds
    engine.shutdown()
    print("Sound went to \(destination) (\(String(format: "%.2f", seconds)) s of engine time).")
} catch {
    print("drumpad: \(error)")
    exit(1)
}
