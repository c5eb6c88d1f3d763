import Backbeat
import Foundation

/// Where and when a benchmark run happened, recorded in every `--json` file
/// so that two files say what they compare.
package struct BenchRun: Sendable, Equatable {
    /// The checkout's commit (`-dirty` when its tracked files differ), or `unknown`.
    package var commit: String
    /// OpenAL's version and renderer, such as `1.1 ALSOFT 1.19.1 (OpenAL Soft)`.
    package var openAL: String
    /// The CPU model, from `/proc/cpuinfo`.
    package var cpu: String
    /// Cores online.
    package var cores: Int
    /// When the run started, ISO 8601 in UTC.
    package var date: String
    /// Rounds per side-by-side figure.
    package var rounds: Int
    /// Whether the run used the tiny `--quick` sizes.
    package var quick: Bool
    /// The 1-minute load average when the run started and when it ended
    /// (nil until it ends): a busy machine shows here, not only in the spread.
    package var load: (start: Double, end: Double?)?

    /// A description of a run.
    package init(
        commit: String, openAL: String, cpu: String, cores: Int, date: String, rounds: Int, quick: Bool,
        load: (start: Double, end: Double?)? = nil
    ) {
        self.commit = commit
        self.openAL = openAL
        self.cpu = cpu
        self.cores = cores
        self.date = date
        self.rounds = rounds
        self.quick = quick
        self.load = load
    }

    /// Equal when every field is (loads included).
    package static func == (a: BenchRun, b: BenchRun) -> Bool {
        a.commit == b.commit && a.openAL == b.openAL && a.cpu == b.cpu && a.cores == b.cores && a.date == b.date
            && a.rounds == b.rounds && a.quick == b.quick && a.load?.start == b.load?.start
            && a.load?.end == b.load?.end
    }

    /// Notes the load average as the run ends.
    package mutating func finish() {
        if let start = load?.start { load = (start, Self.loadAverage()) }
    }

    /// This machine now, for a run with `options`. Never fails: what cannot be
    /// found is `unknown`.
    package static func current(_ options: BenchOptions) -> BenchRun {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return BenchRun(
            commit: gitCommit(), openAL: (try? OpenALBaseline().versionDescription) ?? "unknown",
            cpu: cpuModel(), cores: ProcessInfo.processInfo.activeProcessorCount,
            date: formatter.string(from: Date()), rounds: options.rounds, quick: options.quick,
            load: loadAverage().map { ($0, nil) })
    }

    /// The JSON object under the report's `run` key.
    var jsonObject: [String: Any] {
        var object: [String: Any] = [
            "commit": commit, "openal": openAL, "cpu": cpu, "cores": cores, "date": date,
            "rounds": rounds, "quick": quick,
        ]
        if let load {
            object["load_start"] = load.start
            if let end = load.end { object["load_end"] = end }
        }
        return object
    }

    /// Reads the `run` object; fields a file lacks are `unknown` (older files had none).
    init(jsonObject: [String: Any]?) {
        let object = jsonObject ?? [:]
        self.init(
            commit: object["commit"] as? String ?? "unknown", openAL: object["openal"] as? String ?? "unknown",
            cpu: object["cpu"] as? String ?? "unknown", cores: object["cores"] as? Int ?? 0,
            date: object["date"] as? String ?? "unknown", rounds: object["rounds"] as? Int ?? 0,
            quick: object["quick"] as? Bool ?? false,
            load: (object["load_start"] as? Double).map { ($0, object["load_end"] as? Double) })
    }

    /// One line: commit, date, OpenAL, CPU and cores.
    package var summary: String {
        let loads =
            load.map { l in
                ", load \(String(format: "%.2f", l.start))" + (l.end.map { String(format: " → %.2f", $0) } ?? "")
            } ?? ""
        return
            "commit \(commit), \(date), OpenAL \(openAL), \(cpu) × \(cores), \(rounds) rounds\(quick ? ", quick" : "")\(loads)"
    }

    /// The commit of the checkout holding this executable, else of the working directory.
    private static func gitCommit() -> String {
        var places: [String] = []
        if let executable = try? selfPath() { places.append((executable as NSString).deletingLastPathComponent) }
        places.append(FileManager.default.currentDirectoryPath)
        for place in places {
            guard let head = git(["-C", place, "rev-parse", "HEAD"]), head.status == 0,
                head.output.count == 40, head.output.allSatisfy(\.isHexDigit)
            else { continue }
            let clean = git(["-C", place, "diff", "--quiet", "HEAD", "--"])?.status == 0
            return head.output + (clean ? "" : "-dirty")
        }
        return "unknown"
    }

    private static func git(_ arguments: [String]) -> (status: Int32, output: String)? {
        guard
            let path = ["/usr/bin/git", "/usr/local/bin/git", "/bin/git"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus,
            String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        )
    }

    /// The 1-minute load average, from `/proc/loadavg`.
    private static func loadAverage() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { Double($0) }
    }

    private static func cpuModel() -> String {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        for line in info.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown"
    }
}
