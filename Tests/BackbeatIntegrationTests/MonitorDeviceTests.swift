import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// `backbeat monitor` against a drum pad started with `--monitor`, playing
/// through a private sound server, as a sound designer would use it.
@Suite struct MonitorDeviceTests {
    static let pads = ["snare", "bass", "tambourine", "maraca"]

    /// RMS of interleaved samples in dBFS (−200 for digital silence).
    static func decibels(_ samples: [Float]) -> Double {
        let rms = Double(SampleAnalysis.rms(samples))
        return rms > 0 ? 20 * log10(rms) : -200
    }

    /// Whether a snapshot lists a pad voice that is heard now.
    static func padsPlay(in snapshot: [String: Any]) -> Bool {
        ((snapshot["voices"] as? [[String: Any]]) ?? []).contains { voice in
            voice["bus"] as? String == "effects" && voice["state"] as? String == "playing"
        }
    }

    @Test(
        "soundServer: drumpad --monitor is listed, --json shows its pads as voices and its music's level, and --set bus.music.volume=0 is heard"
    )
    func listJSONAndSetOnTheDevice() throws {
        try withTemporaryDirectory { dir in
            let game = try MonitorGame(in: dir)
            defer { game.stop() }

            // The list: a header, then the game by PID, process name and uptime.
            let list = try game.backbeat(["monitor"])
            #expect(list.status == 0)
            let rows = list.stdout.split(separator: "\n")
            #expect(rows.first?.split(separator: " ") == ["PID", "PROCESS", "UPTIME"], "\(list.stdout)")
            let row = try #require(rows.first { $0.split(separator: " ").first == "\(game.pid)" }, "\(list.stdout)")
            let fields = row.split(separator: " ")
            #expect(fields.count == 3 && fields[1] == "drumpad", "\(row)")
            #expect(fields.last?.contains(":") == true, "uptime as m:ss: \(row)")

            // The music, heard on its bus.
            game.send("play")
            let playing = try game.snapshot {
                (MonitorGame.bus("music", in: $0)?["rmsDB"] as? Double ?? -200) > -60
            }
            try #require(playing != nil, "the music bus never read above -60 dB")

            // --json --count 5 while the pads are hit: they show as voices on the effects bus.
            let reader = try JSONReader(game: game, arguments: ["--json", "--count", "5"])
            #expect(reader.waitForLines(1), "no first snapshot")
            game.send("snare", "bass", "tambourine", "maraca")
            #expect(reader.waitForLines(2))
            game.send("snare", "bass")
            let result = reader.finish()
            #expect(result.status == 0, "\(result.stderr)")
            let snapshots = try result.lines.map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)")
            }
            #expect(snapshots.count == 5)
            #expect(snapshots.allSatisfy { $0["type"] as? String == "snapshot" && $0["version"] as? Int == 1 })
            let names = Set(
                snapshots.flatMap { ($0["voices"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } })
            let heard = Self.pads.filter { pad in names.contains { $0.contains(pad) } }
            #expect(heard.count >= 2, "pad voices seen: \(names.sorted())")
            let musicLevels = snapshots.compactMap { MonitorGame.bus("music", in: $0)?["rmsDB"] as? Double }
            #expect(musicLevels.count == 5 && musicLevels.allSatisfy { $0 > -60 }, "\(musicLevels)")
            // The device's update thread is timed whole, once a snapshot: each
            // after the first reports its CPU (the first covers one step).
            let cpu = snapshots.dropFirst().compactMap {
                ($0["engine"] as? [String: Any])?["updateCPUPercent"] as? Double
            }
            #expect(cpu.count == 4 && cpu.allSatisfy { $0 > 0 && $0 < 100 }, "updateCPUPercent \(cpu)")

            // The music alone (the pads have rung out), recorded for about five snapshots' time.
            _ = try game.snapshot { !Self.padsPlay(in: $0) }
            let before = try game.server.recordMonitor(of: MonitorGame.sink)
            _ = try game.snapshots(5)
            let loud = Self.decibels(try before.stop())

            let set = try game.backbeat(["monitor", "\(game.pid)", "--set", "bus.music.volume=0"])
            #expect(set.status == 0, "\(set.stderr)")
            #expect(set.stdout.isEmpty && set.stderr.isEmpty)
            // The change glides; the snapshots say when it has arrived.
            let silent = try game.snapshot {
                guard let music = MonitorGame.bus("music", in: $0) else { return false }
                return music["volume"] as? Double == 0 && (music["effectiveGain"] as? Double ?? 1) < 1e-5
                    && !Self.padsPlay(in: $0)
            }
            try #require(silent != nil, "the music bus's volume never reached 0")
            let after = try game.server.recordMonitor(of: MonitorGame.sink)
            _ = try game.snapshots(5)
            let quiet = Self.decibels(try after.stop())
            print("monitor --set bus.music.volume=0: the sink's monitor read \(loud) dBFS before, \(quiet) dBFS after")
            #expect(loud > -40, "the music was heard at \(loud) dBFS")
            #expect(loud - quiet >= 40, "before \(loud) dBFS, after \(quiet) dBFS")

            // A change the game refuses: exit 1 with its error line.
            let refused = try game.backbeat(["monitor", "\(game.pid)", "--set", "bus.nosuchbus.volume=1"])
            #expect(refused.status == 1)
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("nosuchbus"), "\(refused.stderr)")
        }
    }

    @Test(
        "soundServer: the live screen in a terminal shows the buses and voices, its keys mute, lower and quit, and q and SIGTERM restore the terminal"
    )
    func liveScreenInATerminal() throws {
        try withTemporaryDirectory { dir in
            let game = try MonitorGame(in: dir)
            defer { game.stop() }
            game.send("play")

            // Not a terminal: one line that points at --json.
            let piped = try game.backbeat(["monitor", "\(game.pid)"])
            #expect(piped.status == 1)
            #expect(
                piped.stderr.split(separator: "\n").count == 1 && piped.stderr.contains("--json"), "\(piped.stderr)")

            let tmux = MonitorTmux(directory: dir)
            defer { tmux.kill() }
            // The pane runs the monitor, then says how it ended and whether the
            // terminal is back in canonical mode, and stays open to be read.
            let command =
                [
                    "env", "XDG_RUNTIME_DIR=\(game.runtime.path)", try BackbeatTool.binary(), "monitor",
                    "\(game.pid)",
                ]
                .map(MonitorTmux.quoted).joined(separator: " ")
                + "; echo \"monitor exited with status $?\"; stty -a | tr ' ' '\\n' | grep -x -- '-\\?icanon'"
                + "; exec sleep 600"
            try tmux.run(["new-session", "-d", "-s", "monitor", "-x", "100", "-y", "30", "-c", dir.path, command])
            let drawn = try tmux.waitForScreen {
                $0.contains("drumpad (PID \(game.pid))") && $0.contains("> master") && $0.contains("  music ")
                    && $0.contains("\"")
            }
            try #require(drawn.ok, "the screen did not appear:\n\(drawn.screen)")
            game.send("snare", "bass", "tambourine", "maraca")
            let withPad = try tmux.waitForScreen { $0.contains("snare") }
            #expect(withPad.ok, "\(withPad.screen)")
            try tmux.writeCapture(to: dir.appendingPathComponent("monitor-screen.txt"))

            // j selects the music bus, m mutes it, - lowers it by 1 dB: the game's next snapshots say so.
            try tmux.run(["send-keys", "-t", "monitor", "j", "m", "-"])
            let changed = try game.snapshot {
                guard let music = MonitorGame.bus("music", in: $0) else { return false }
                return music["muted"] as? Bool == true && abs((music["volume"] as? Double ?? 0) - 0.891) < 0.001
            }
            let lastMusic = try game.snapshots(1).first.flatMap { MonitorGame.bus("music", in: $0) }
            let lastScreen = try tmux.screen()
            #expect(
                changed != nil,
                "m and - did not mute and lower the music bus: \(String(describing: lastMusic))\n\(lastScreen)")
            let marked = try tmux.waitForScreen { $0.contains("> music") && $0.contains("MUTE") }
            #expect(marked.ok, "\(marked.screen)")

            try tmux.run(["send-keys", "-t", "monitor", "q"])
            let ended = try tmux.waitForScreen { $0.contains("monitor exited with status 0") && $0.contains("icanon") }
            #expect(ended.ok, "\(ended.screen)")
            // The alternate screen is gone and the terminal's mode is back.
            #expect(!ended.screen.contains("keys:"), "\(ended.screen)")
            #expect(ended.screen.split(separator: "\n").contains("icanon"), "\(ended.screen)")

            // SIGTERM restores the terminal too.
            try tmux.run(["new-session", "-d", "-s", "term", "-x", "100", "-y", "30", "-c", dir.path, command])
            let again = try tmux.waitForScreen(session: "term") { $0.contains("> master") }
            try #require(again.ok, "\(again.screen)")
            let shell = try #require(
                Int32(
                    try tmux.run(["list-panes", "-t", "term", "-F", "#{pane_pid}"]).trimmingCharacters(
                        in: .whitespacesAndNewlines)))
            let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
            let monitor = try #require(children.split(separator: " ").first.flatMap { Int32($0) })
            kill(monitor, SIGTERM)
            let terminated = try tmux.waitForScreen(session: "term") {
                $0.contains("monitor exited with status 0") && $0.contains("icanon")
            }
            #expect(terminated.ok, "\(terminated.screen)")
            #expect(!terminated.screen.contains("keys:"), "\(terminated.screen)")
            #expect(terminated.screen.split(separator: "\n").contains("icanon"), "\(terminated.screen)")
        }
    }
}

/// `backbeat monitor PID ARGUMENTS` running, its standard output read line by line as it comes.
final class JSONReader: Sendable {
    private let process = Process()
    private let lines = LockedValueBox<[String]>([])
    private let errors: URL

    init(game: MonitorGame, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: try BackbeatTool.binary())
        process.arguments = ["monitor", "\(game.pid)"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_RUNTIME_DIR": game.runtime.path]) {
            $1
        }
        let output = Pipe()
        process.standardOutput = output
        errors = game.runtime.deletingLastPathComponent().appendingPathComponent("reader.stderr")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        PipeLines.collect(from: output, into: lines)
    }

    /// Waits until `count` lines have come (or the tool ended); the wall clock only bounds it.
    func waitForLines(_ count: Int, seconds: Double = 30) -> Bool {
        MonitorGame.waitFor(seconds: seconds) { [lines, process] in
            lines.withLockedValue { $0.count } >= count || !process.isRunning
        } && lines.withLockedValue { $0.count } >= count
    }

    /// Waits for the tool to end (killing it after `seconds`) and returns what it printed.
    func finish(seconds: Double = 30) -> (status: Int32, lines: [String], stderr: String) {
        _ = MonitorGame.waitFor(seconds: seconds) { [process] in !process.isRunning }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        // The reader may still hold the last lines.
        usleep(100_000)
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        return (process.terminationStatus, lines.withLockedValue { $0 }, stderr)
    }
}

/// A tmux server of the test's own: its socket in the test's folder, no configuration file.
struct MonitorTmux {
    let socket: String
    let output: String

    init(directory: URL) {
        socket = directory.appendingPathComponent("tmux-socket").path
        output = directory.appendingPathComponent("tmux-output").path
    }

    /// Runs one tmux command; returns its standard output. Spawned with no
    /// signal blocked (a test runner's threads block some, and the pane
    /// would inherit that), its output to a file (the server it starts
    /// would hold a pipe open for good).
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let argv = ["tmux", "-S", socket, "-f", "/dev/null"] + arguments
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        let pid = try PrivateSoundServer.spawn(argv, environment: environment, output: output)
        let status = PrivateSoundServer.wait(pid, timeout: 30)
        try #require(status == 0, "tmux \(arguments.joined(separator: " ")) failed")
        return String(decoding: try Data(contentsOf: URL(fileURLWithPath: output)), as: UTF8.self)
    }

    func screen(session: String = "monitor") throws -> String { try run(["capture-pane", "-p", "-t", session]) }

    /// Reads the screen until `condition` holds; gives up after `limit` seconds.
    func waitForScreen(session: String = "monitor", limit: Double = 30, _ condition: (String) -> Bool) throws -> (
        screen: String, ok: Bool
    ) {
        var text = try screen(session: session)
        for _ in 0..<Int(limit * 50) where !condition(text) {
            usleep(20_000)
            text = try screen(session: session)
        }
        return (text, condition(text))
    }

    /// Saves the screen as it shows now, for the README's picture of it.
    func writeCapture(to url: URL) throws {
        let text = try screen()
        try Data(text.utf8).write(to: url)
        if let out = ProcessInfo.processInfo.environment["BACKBEAT_MONITOR_CAPTURE"] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: out))
        }
    }

    func kill() { _ = try? run(["kill-server"]) }

    /// Single-quotes `word` for the shell tmux runs the pane's command with.
    static func quoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
