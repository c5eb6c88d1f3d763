import BackbeatTelemetry
import BackbeatTestFixtures
import Foundation
import Testing

/// `drumpad --monitor`, run as a person runs it: the line with the PID, a
/// monitor client on the socket, the socket gone when the demo ends.
@Suite struct DrumpadMonitorTests {
    @Test func monitorFlagServesTheDemoAndPrintsItsPID() throws {
        try withTemporaryDirectory { dir in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try DrumpadDemoTests.drumpad())
            let wav = dir.appendingPathComponent("out.wav")
            process.arguments = [
                "--assets", Assets.root.appendingPathComponent("Assets").path, "--output", wav.path, "--monitor",
            ]
            process.currentDirectoryURL = dir
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_RUNTIME_DIR"] = dir.path
            process.environment = environment
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer {
                try? input.fileHandleForWriting.close()
                process.waitUntilExit()
            }

            // The demo's lines until the one that names its PID (flushed at once).
            var text = ""
            let pid = process.processIdentifier
            let expected = "monitor: watch with `backbeat monitor \(pid)`"
            while !text.contains(expected) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            #expect(text.contains(expected), "\(text)")
            let socket = TelemetryEndpoint.socketPath(pid: pid, environment: ["XDG_RUNTIME_DIR": dir.path])
            let client = try TelemetryClient(path: socket)
            defer { client.close() }
            var hello: TelemetryHello?
            if case .hello(let line) = try client.nextLine(timeout: 20) { hello = line }
            #expect(hello?.pid == pid && hello?.output == "file")
            try client.send(TelemetryCommand(id: 1, action: .rate(10)))
            try input.fileHandleForWriting.write(contentsOf: Data("snare\nwait 0.5\n".utf8))
            var snapshot: TelemetrySnapshot?
            for _ in 0..<100 {
                guard let line = try client.nextLine(timeout: 20) else { break }
                if case .snapshot(let s) = line, s.time > 0.2 {
                    snapshot = s
                    break
                }
            }
            #expect(snapshot?.buses.map(\.name).prefix(3) == ["master", "music", "effects"])
            try input.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
            try input.fileHandleForWriting.close()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(!FileManager.default.fileExists(atPath: socket), "the socket goes with the demo")
        }
    }
}
