import ArgumentParser
import BackbeatBench
import Foundation

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure Backbeat against raw OpenAL and oggdec, side by side in one run.",
        discussion: "Suites: \(BenchSuites.all.map(\.name).joined(separator: ", ")). Build in release mode for real figures.")

    @Argument(help: "Suites to run (default: all).")
    var suites: [String] = []

    @Flag(help: "Print one JSON object keyed by suite, then by figure.")
    var json = false

    @Flag(help: "Tiny sizes, for a smoke run.")
    var quick = false

    @Option(help: "Length of the soak suite in seconds of real time (default 600).")
    var seconds: Double?

    func validate() throws {
        let known = Set(BenchSuites.all.map(\.name))
        for name in suites where !known.contains(name) {
            throw ValidationError("unknown suite \"\(name)\" (known: \(known.sorted().joined(separator: ", ")))")
        }
        if let seconds, !(seconds.isFinite && seconds >= 1) {
            throw ValidationError("--seconds must be at least 1, got \(seconds)")
        }
    }

    func run() throws {
        let selected = suites.isEmpty ? BenchSuites.all : BenchSuites.all.filter { suites.contains($0.name) }
        var results: [(String, [Figure])] = []
        for suite in selected {
            let log: (String) -> Void = { line in
                FileHandle.standardError.write(Data("[\(suite.name)] \(line)\n".utf8))
            }
            log(suite.summary)
            results.append((suite.name, try suite.run(BenchOptions(quick: quick, seconds: seconds), log: log)))
        }
        if json {
            var object: [String: [String: Double]] = [:]
            for (name, figures) in results {
                object[name] = Dictionary(figures.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
            }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("| figure | value | unit |")
            print("|---|---:|---|")
            for (name, figures) in results {
                for figure in figures {
                    print("| \(name).\(figure.key) | \(format(figure.value)) | \(figure.unit) |")
                }
            }
        }
    }

    private func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e9 { return String(Int(value)) }
        return String(format: abs(value) >= 100 ? "%.1f" : "%.3f", value)
    }
}
