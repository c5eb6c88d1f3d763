import BackbeatTestFixtures
import Foundation
import Testing

/// `backbeat monitor` where no game is needed: the list when nothing
/// monitors, and the one-line failures.
@Suite struct MonitorCommandTests {
    /// Runs `backbeat monitor` with a runtime folder of its own, so games
    /// other tests start are not seen.
    static func monitor(_ arguments: [String], runtime: URL) throws -> (status: Int32, stdout: String, stderr: String) {
        try BackbeatTool.run(["monitor"] + arguments, environment: ["XDG_RUNTIME_DIR": runtime.path])
    }

    static func lines(_ text: String) -> [Substring] { text.split(separator: "\n") }

    @Test func withNoGameTheListSaysHowToStartOne() throws {
        try withTemporaryDirectory { runtime in
            let result = try Self.monitor([], runtime: runtime)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(Self.lines(result.stdout).count == 1, "\(result.stdout)")
            #expect(result.stdout.contains("No running game is monitoring"))
            #expect(result.stdout.contains("BACKBEAT_MONITOR=1") && result.stdout.contains("drumpad --monitor"))
        }
    }

    @Test func anUnknownPIDIsOneLineAndExitOne() throws {
        try withTemporaryDirectory { runtime in
            // No such process; then a live process (this one) that is not monitoring.
            for pid in ["2147483000", String(getpid())] {
                for mode in [["--json", "--count", "1"], ["--set", "bus.music.mute=on"], ["--reload"], []] {
                    let result = try Self.monitor([pid] + mode, runtime: runtime)
                    #expect(result.status == 1, "\(pid) \(mode): \(result.stdout)")
                    #expect(Self.lines(result.stderr).count == 1, "\(pid) \(mode): \(result.stderr)")
                    #expect(result.stderr.hasPrefix("backbeat: "), "\(result.stderr)")
                    #expect(result.stdout.isEmpty)
                }
            }
        }
    }

    @Test(arguments: ["volume", "bus.music.volume=loud", "bus.music.loudness=1", "snapshot.menu=maybe", "=1"])
    func aBadAssignmentIsOneLineAndExitOne(_ assignment: String) throws {
        try withTemporaryDirectory { runtime in
            // Read before anything is sent: no game is needed to refuse it.
            let result = try Self.monitor(
                [String(getpid()), "--set", "bus.music.mute=on", "--set", assignment], runtime: runtime)
            #expect(result.status == 1)
            #expect(Self.lines(result.stderr).count == 1, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("backbeat: --set \(assignment): "), "\(result.stderr)")
        }
    }

    @Test func helpSaysJSONPrintsOnlySnapshots() throws {
        let help = try BackbeatTool.run(["monitor", "--help"])
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("only the snapshot lines"), "\(help.stdout)")
        #expect(help.status == 0)
    }
}
