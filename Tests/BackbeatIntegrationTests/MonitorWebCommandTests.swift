import BackbeatTestFixtures
import Foundation
import Testing

/// `backbeat monitor PID --web` before it serves anything. The page itself,
/// against the drum pad in a browser, is Scripts/monitor-browser-test.py.
@Suite struct MonitorWebCommandTests {
    @Test("An unknown PID, or a process that is not monitoring, is one line and exit 1, with no address")
    func refusesWithoutAGame() throws {
        try withTemporaryDirectory { dir in
            // A private runtime folder: no game's socket is in it.
            let environment = ProcessInfo.processInfo.environment.merging(["XDG_RUNTIME_DIR": dir.path]) { $1 }
            for pid in ["2147483646", String(getpid())] {
                let result = try BackbeatTool.run(["monitor", pid, "--web", "--port", "0"], environment: environment)
                #expect(result.status == 1, "\(pid): \(result.stderr)")
                #expect(result.stdout.isEmpty, "\(pid): printed an address: \(result.stdout)")
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 1 && lines[0].hasPrefix("backbeat: "), "\(pid): \(result.stderr)")
            }
        }
    }
}
