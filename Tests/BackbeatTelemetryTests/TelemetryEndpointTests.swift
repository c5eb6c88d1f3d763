import Foundation
import Glibc
import Testing

@testable import BackbeatTelemetry

@Suite struct TelemetryEndpointTests {
    @Test func folderIsUnderTheRuntimeFolder() {
        #expect(
            TelemetryEndpoint.directory(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"]) == "/run/user/1000/backbeat"
        )
        #expect(
            TelemetryEndpoint.socketPath(pid: 42, environment: ["XDG_RUNTIME_DIR": "/run/user/1000/"])
                == "/run/user/1000/backbeat/42.sock")
    }

    @Test func withoutARuntimeFolderItIsInTmpByUser() {
        #expect(TelemetryEndpoint.directory(environment: [:]) == "/tmp/backbeat-\(geteuid())")
        #expect(TelemetryEndpoint.directory(environment: ["XDG_RUNTIME_DIR": ""]) == "/tmp/backbeat-\(geteuid())")
        #expect(TelemetryEndpoint.socketPath(pid: 7, environment: [:]) == "/tmp/backbeat-\(geteuid())/7.sock")
    }

    @Test func runningGamesListsThisProcessAndSkipsDeadOnes() throws {
        try withTemporaryDirectory { root in
            let environment = ["XDG_RUNTIME_DIR": root]
            #expect(TelemetryEndpoint.runningGames(environment: environment).isEmpty)
            let server = try TelemetryServer(
                path: TelemetryEndpoint.socketPath(pid: getpid(), environment: environment), hello: testHello
            ) { _ in .ok(id: nil) }
            defer { server.close() }
            // A crashed game's socket: its process is gone.
            let deadPID = Int32.max - 1
            #expect(kill(deadPID, 0) != 0)
            let stale = try #require(try? TelemetrySocket.makeStream(nonBlocking: false).get())
            let stalePath = TelemetryEndpoint.socketPath(pid: deadPID, environment: environment)
            #expect(TelemetrySocket.withAddress(of: stalePath) { bind(stale, $0, $1) } == 0)
            close(stale)

            let games = TelemetryEndpoint.runningGames(environment: environment)
            #expect(games.map(\.pid) == [getpid()])
            let game = try #require(games.first)
            #expect(game.path == server.path)
            #expect(game.process == TelemetryEndpoint.processName(of: getpid()))
            #expect(!game.process.isEmpty)
            #expect(game.uptime >= 0 && game.uptime < 365 * 86_400)

            server.close()
            #expect(TelemetryEndpoint.runningGames(environment: environment).isEmpty)
        }
    }

    @Test func clientNamesAMissingProcessOrAGameNotMonitoring() throws {
        try withTemporaryDirectory { root in
            let environment = ["XDG_RUNTIME_DIR": root]
            #expect(throws: TelemetryClientError("no process with PID \(Int32.max - 1)")) {
                try TelemetryClient(pid: Int32.max - 1, environment: environment)
            }
            let name = try #require(TelemetryEndpoint.processName(of: getpid()))
            let path = TelemetryEndpoint.socketPath(pid: getpid(), environment: environment)
            #expect(throws: TelemetryClientError("PID \(getpid()) (\(name)) is not monitoring: no socket at \(path)")) {
                try TelemetryClient(pid: getpid(), environment: environment)
            }
            let server = try TelemetryServer(path: path, hello: testHello) { _ in .ok(id: nil) }
            defer { server.close() }
            #expect(try TelemetryClient(pid: getpid(), environment: environment).readHello() == testHello)
        }
    }
}
