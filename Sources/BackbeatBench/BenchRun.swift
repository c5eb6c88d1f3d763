@_spi(Benchmark) import Backbeat
import Foundation

/// Where and when a benchmark run happened, recorded in every `--json` file
/// so that two files say what they compare.
public struct BenchRun: Sendable, Equatable {
    /// The checkout's commit (`-dirty` when its tracked files differ), or `unknown`.
    public var commit: String
    /// OpenAL's version and renderer, such as `1.1 ALSOFT 1.19.1 (OpenAL Soft)`.
    public var openAL: String
    /// The CPU model, from `/proc/cpuinfo`.
    public var cpu: String
    /// Cores online.
    public var cores: Int
    /// When the run started, ISO 8601 in UTC.
    public var date: String
    /// Rounds per side-by-side figure.
    public var rounds: Int
    /// Whether the run used the tiny `--quick` sizes.
    public var quick: Bool

    /// A description of a run.
    public init(commit: String, openAL: String, cpu: String, cores: Int, date: String, rounds: Int, quick: Bool) {
        self.commit = commit
        self.openAL = openAL
        self.cpu = cpu
        self.cores = cores
        self.date = date
        self.rounds = rounds
        self.quick = quick
    }

    /// This machine now, for a run with `options`. Never fails: what cannot be
    /// found is `unknown`.
    public static func current(_ options: BenchOptions) -> BenchRun {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return BenchRun(commit: gitCommit(), openAL: (try? OpenALBaseline().versionDescription) ?? "unknown",
                        cpu: cpuModel(), cores: ProcessInfo.processInfo.activeProcessorCount,
                        date: formatter.string(from: Date()), rounds: options.rounds, quick: options.quick)
    }

    /// The JSON object under the report's `run` key.
    var jsonObject: [String: Any] {
        ["commit": commit, "openal": openAL, "cpu": cpu, "cores": cores, "date": date, "rounds": rounds, "quick": quick]
    }

    /// Reads the `run` object; fields a file lacks are `unknown` (older files had none).
    init(jsonObject: [String: Any]?) {
        let object = jsonObject ?? [:]
        self.init(commit: object["commit"] as? String ?? "unknown", openAL: object["openal"] as? String ?? "unknown",
                  cpu: object["cpu"] as? String ?? "unknown", cores: object["cores"] as? Int ?? 0,
                  date: object["date"] as? String ?? "unknown", rounds: object["rounds"] as? Int ?? 0,
                  quick: object["quick"] as? Bool ?? false)
    }

    /// One line: commit, date, OpenAL, CPU and cores.
    public var summary: String {
        "commit \(commit), \(date), OpenAL \(openAL), \(cpu) × \(cores), \(rounds) rounds\(quick ? ", quick" : "")"
    }

    /// The commit of the checkout holding this executable, else of the working directory.
    private static func gitCommit() -> String {
        var places: [String] = []
        if let executable = try? selfPath() { places.append((executable as NSString).deletingLastPathComponent) }
        places.append(FileManager.default.currentDirectoryPath)
        for place in places {
            guard let head = git(["-C", place, "rev-parse", "HEAD"]), head.status == 0,
                  head.output.count == 40, head.output.allSatisfy(\.isHexDigit) else { continue }
            let clean = git(["-C", place, "diff", "--quiet", "HEAD", "--"])?.status == 0
            return head.output + (clean ? "" : "-dirty")
        }
        return "unknown"
    }

    private static func git(_ arguments: [String]) -> (status: Int32, output: String)? {
        guard let path = ["/usr/bin/git", "/usr/local/bin/git", "/bin/git"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
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
        return (process.terminationStatus, String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
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
