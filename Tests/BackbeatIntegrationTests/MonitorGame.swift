import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// A drum pad started with `--monitor` on a private sound server, with a
/// runtime folder of its own (so `backbeat monitor` sees this game and no
/// other test's), pads and commands written to its standard input, and
/// `backbeat monitor` run against it.
final class MonitorGame: Sendable {
    static let sink = "Monitor-Game"

    let server: PrivateSoundServer
    /// `XDG_RUNTIME_DIR` for the game and the tool: the socket is `backbeat/PID.sock` in it.
    let runtime: URL
    let pid: Int32
    private let process: Process
    private let input = Pipe()

    /// Starts the server and the game, and returns once `backbeat monitor` lists the game.
    ///
    /// - Parameter directory: a scratch folder, removed by the caller.
    init(in directory: URL) throws {
        server = try PrivateSoundServer(sinks: [Self.sink])
        runtime = directory.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.drumpad())
        process.arguments = ["--assets", Self.assets.path, "--monitor"]
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment
            .merging(server.environment) { $1 }.merging(["ALSOFT_DRIVERS": "pulse"]) { $1 }
            .merging(["XDG_RUNTIME_DIR": runtime.path]) { $1 }
            .filter { $0.key != "ALSOFT_CONF" && $0.key != "BACKBEAT_MONITOR" }
        process.standardInput = input
        let out = directory.appendingPathComponent("drumpad.stdout")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: out)
        try process.run()
        pid = process.processIdentifier
        let listed = Self.waitFor(seconds: 60) { [runtime, pid] in
            guard let list = try? Self.monitor(["monitor"], runtime: runtime) else { return false }
            return list.stdout.split(separator: "\n").contains { $0.split(separator: " ").first == "\(pid)" }
        }
        if !listed {
            stop()
            let log = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            try #require(Bool(false), "backbeat monitor never listed the drum pad: \(log)")
        }
    }

    deinit { stop() }

    /// The demo's assets (pads, music) in the repository.
    static var assets: URL { root.appendingPathComponent("Assets") }

    /// The repository root, found from this file.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Writes command lines to the game's standard input.
    ///
    /// - Parameter lines: drum pad commands, such as `snare` or `play`.
    func send(_ lines: String...) {
        signal(SIGPIPE, SIG_IGN)
        try? input.fileHandleForWriting.write(contentsOf: Data(lines.map { $0 + "\n" }.joined().utf8))
    }

    /// Ends the game (SIGTERM fades it out and exits) and the server.
    func stop() {
        if process.isRunning { process.terminate() }
        _ = Self.waitFor(seconds: 10) { [process] in !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        server.stop()
    }

    /// Runs `backbeat` with this game's runtime folder.
    ///
    /// - Parameter arguments: such as `["monitor", "\(pid)", "--json", "--count", "5"]`.
    func backbeat(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try Self.monitor(arguments, runtime: runtime)
    }

    static func monitor(_ arguments: [String], runtime: URL) throws -> (status: Int32, stdout: String, stderr: String) {
        try BackbeatTool.run(arguments, environment: ["XDG_RUNTIME_DIR": runtime.path])
    }

    /// `count` snapshots, read with `backbeat monitor PID --json --count`, each as a JSON object.
    ///
    /// - Parameters:
    ///   - count: how many.
    ///   - rate: snapshots per second to ask for.
    func snapshots(_ count: Int, rate: Int? = nil) throws -> [[String: Any]] {
        var arguments = ["monitor", "\(pid)", "--json", "--count", "\(count)"]
        if let rate { arguments += ["--rate", "\(rate)"] }
        let result = try backbeat(arguments)
        try #require(result.status == 0, "\(result.stderr)")
        return try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// The bus called `name` in a snapshot.
    static func bus(_ name: String, in snapshot: [String: Any]) -> [String: Any]? {
        (snapshot["buses"] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }

    /// Snapshots until `condition` holds for one (read ten at a time), at most `seconds` of wall clock.
    ///
    /// - Returns: the snapshot that satisfied it, or nil.
    func snapshot(within seconds: Double = 30, where condition: ([String: Any]) -> Bool) throws -> [String: Any]? {
        let giveUp = Date().addingTimeInterval(seconds)
        while Date() < giveUp {
            if let found = try snapshots(10, rate: 30).first(where: condition) { return found }
        }
        return nil
    }

    /// The game's resident memory (VmRSS in /proc/PID/status), in KiB.
    var residentKiB: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line?.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    /// The socket's path by the documented rule.
    var socketPath: String { runtime.appendingPathComponent("backbeat/\(pid).sock").path }

    /// Waits for `condition`, checking every 20 ms; the wall clock only bounds the wait.
    ///
    /// - Returns: whether it held in time.
    static func waitFor(seconds: Double, _ condition: () -> Bool) -> Bool {
        let giveUp = Date().addingTimeInterval(seconds)
        while Date() < giveUp {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    static func drumpad() throws -> String {
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("drumpad"))
        }
        candidates.append(root.appendingPathComponent(".build/debug/drumpad"))
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
        return try #require(found, "build drumpad first (swift build --build-tests)").path
    }
}
