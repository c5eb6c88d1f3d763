import ArgumentParser
import BackbeatBench
import Foundation

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure Backbeat against raw OpenAL and oggdec, side by side in one run; compare two runs.",
        subcommands: [
            BenchRunCommand.self, BenchCompareCommand.self, BenchShowCommand.self, BenchDeviceSceneCommand.self,
        ],
        defaultSubcommand: BenchRunCommand.self)
}

struct BenchRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run benchmark suites (the default: `backbeat bench mix --json`).",
        discussion: """
            Suites: \(BenchSuites.all.map(\.name).joined(separator: ", ")). Build in release mode for real figures.
            Side-by-side figures are the median of interleaved rounds (Backbeat, reference; reference, Backbeat; ...),
            reported with KEY_min and KEY_max.
            """)

    @Argument(help: "Suites to run (default: all).")
    var suites: [String] = []

    @Flag(help: "Print one JSON object: run (commit, OpenAL, CPU, date), then suite → figure → value.")
    var json = false

    @Flag(help: "Tiny sizes, for a smoke run.")
    var quick = false

    @Option(
        help:
            "Length of the soak suite in seconds of real time (default 600), or of the capture scene alone (--only xrealtime_ratio) in seconds of audio."
    )
    var seconds: Double?

    @Option(help: "Interleaved rounds per figure (default \(BenchOptions.defaultRounds)).")
    var rounds: Int = BenchOptions.defaultRounds

    @Option(help: .hidden)
    var only: String?

    func validate() throws {
        let known = Set(BenchSuites.all.map(\.name))
        for name in suites where !known.contains(name) {
            throw ValidationError("unknown suite \"\(name)\" (known: \(known.sorted().joined(separator: ", ")))")
        }
        if let seconds, !(seconds.isFinite && seconds >= 1) {
            throw ValidationError("--seconds must be at least 1, got \(seconds)")
        }
        guard (1...1_000).contains(rounds) else {
            throw ValidationError("--rounds must be from 1 to 1000, got \(rounds)")
        }
    }

    func run() throws {
        let selected = suites.isEmpty ? BenchSuites.all : BenchSuites.all.filter { suites.contains($0.name) }
        let options = BenchOptions(quick: quick, seconds: seconds, rounds: rounds, only: only)
        var run = BenchRun.current(options)
        FileHandle.standardError.write(Data("[bench] \(run.summary)\n".utf8))
        var results: [(suite: String, figures: [Figure])] = []
        for suite in selected {
            let log: (String) -> Void = { line in
                FileHandle.standardError.write(Data("[\(suite.name)] \(line)\n".utf8))
            }
            log(suite.summary)
            results.append((suite.name, try suite.run(options, log: log)))
        }
        run.finish()
        if json {
            print(String(decoding: try BenchReport(run: run, results: results).json(), as: UTF8.self))
        } else {
            print("| figure | value | unit |")
            print("|---|---:|---|")
            for (name, figures) in results {
                for figure in figures {
                    let spread =
                        figure.rounds.isEmpty
                        ? ""
                        : " (\(BenchComparison.format(figure.minimum))–\(BenchComparison.format(figure.maximum)))"
                    print(
                        "| \(name).\(figure.key) | \(BenchComparison.format(figure.value))\(spread) | \(figure.unit) |")
                }
            }
        }
    }
}

struct BenchCompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Print each figure's change from OLD to NEW (two `backbeat bench --json` files).",
        discussion:
            "A change is marked as noise when the two min–max ranges overlap, as benchstat does with confidence intervals."
    )

    @Argument(help: "The earlier run's JSON.")
    var old: String

    @Argument(help: "The later run's JSON.")
    var new: String

    func run() throws {
        let reports = try [old, new].map(readReport)
        print(BenchComparison(old: reports[0], new: reports[1]).table(oldName: old, newName: new))
    }
}

struct BenchShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print one `backbeat bench --json` file as a Markdown table (median and min–max of each figure).",
        discussion: """
            With --markdown, prints the README's benchmark table instead: one figure per cell (the median), \
            its reference and goal, and a line under it giving the run's date, commit and machine. Given \
            several runs, oldest first, each suite comes from the last run that has it, and each run gets \
            its line.
            """)

    @Argument(help: "The run's JSON, such as Docs/bench/latest.json; with --markdown, several runs, oldest first.")
    var files: [String]

    @Flag(help: "Print the README's benchmark table: one figure per cell, the run's date, commit and machine under it.")
    var markdown = false

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("name a run's JSON, such as Docs/bench/latest.json") }
        guard markdown || files.count == 1 else { throw ValidationError("several runs need --markdown") }
    }

    func run() throws {
        if markdown {
            print(BenchTable(reports: try files.map(readReport)).markdown)
            return
        }
        let file = files[0]
        let report = try readReport(file)
        print("\(file): \(report.run.summary)")
        print("")
        print("| figure | value (min–max over rounds) |")
        print("|---|---:|")
        for row in BenchComparison(old: report, new: report).rows {
            guard let value = row.new else { continue }
            let range =
                value.range.map {
                    " (\(BenchComparison.format($0.lowerBound))–\(BenchComparison.format($0.upperBound)))"
                } ?? ""
            print("| \(row.figure) | \(BenchComparison.format(value.median))\(range) |")
        }
    }
}

/// Reads a `backbeat bench --json` file, as a usage error when it cannot.
private func readReport(_ path: String) throws -> BenchReport {
    guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read \(path)") }
    do { return try BenchReport(json: data, name: path) } catch let error as BenchError {
        throw ValidationError(error.description)
    }
}

/// The `device` suite's child: plays one side of its scene on the default
/// device (see `DeviceSuite`). Not for direct use.
struct BenchDeviceSceneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device-scene", abstract: "One side of the device suite's scene (internal).",
        shouldDisplay: false)

    @Option var side: String
    @Option var seconds: Int
    @Option var latency: String
    @Option var song: String
    @Option var result: String

    func validate() throws {
        guard DeviceScene.Side(rawValue: side) != nil else { throw ValidationError("unknown side \(side)") }
        guard (1...3_600).contains(seconds) else { throw ValidationError("--seconds must be from 1 to 3600") }
        guard DeviceScene.latency(named: latency) != nil else {
            throw ValidationError("--latency must be low, default, safe or SIZExCOUNT, such as 128x3")
        }
    }

    func run() throws {
        try DeviceScene.run(
            side: DeviceScene.Side(rawValue: side)!, seconds: seconds,
            latency: DeviceScene.latency(named: latency)!,
            song: URL(fileURLWithPath: song), result: URL(fileURLWithPath: result))
    }
}
