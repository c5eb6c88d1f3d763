import BackbeatSupport
import BackbeatTesting
import Foundation
import Testing

/// A device scene (`DeviceScenes`, built with the tests) running as a child
/// process on a private sound server: its lines as they come, and a way to
/// talk to it.
final class DeviceScene: Sendable {
    private let process: Process
    private let input = Pipe()
    private let lines = LockedValueBox<[String]>([])
    let log: String

    /// Starts `scene` on `server`; `environment` adds to the scene's environment
    /// last (an empty value removes a variable).
    init(_ scene: String, server: PrivateSoundServer, directory: URL, environment: [String: String] = [:]) throws {
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(
                URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("DeviceScenes"))
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/DeviceScenes"))
        let binary = try #require(
            candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) },
            "build the tests first (swift build --build-tests)")
        process = Process()
        process.executableURL = binary
        process.arguments = [scene, directory.path]
        // This process's engines may have pointed ALSOFT_CONF at their config: the scene writes its own.
        process.environment = ProcessInfo.processInfo.environment
            .merging(server.environment) { $1 }.merging(["ALSOFT_DRIVERS": "pulse"]) { $1 }
            .filter { $0.key != "ALSOFT_CONF" }.merging(environment) { $1 }.filter { !$0.value.isEmpty }
        process.standardInput = input
        let output = Pipe()
        process.standardOutput = output
        log = directory.appendingPathComponent("\(scene).stderr").path
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try process.run()
        PipeLines.collect(from: output, into: lines)
    }

    /// Every line so far.
    var all: [String] { lines.withLockedValue { $0 } }

    /// The first line that starts with `word`, waiting for it while the scene
    /// runs (the wall clock only bounds the wait: a scene that hangs fails).
    func line(_ word: String, seconds: Double = 120) -> String? {
        let giveUp = Date().addingTimeInterval(seconds)
        while Date() < giveUp {
            if let found = all.first(where: { $0 == word || $0.hasPrefix(word + " ") }) { return found }
            if !process.isRunning {
                usleep(100_000)  // the reader may still hold the last lines
                return all.first { $0 == word || $0.hasPrefix(word + " ") }
            }
            usleep(10_000)
        }
        return nil
    }

    /// Writes a line to the scene's standard input. A scene that already
    /// ended (it gave up waiting) does not read it: the write fails quietly
    /// rather than ending the tests with SIGPIPE, and the test fails on the
    /// scene's lines.
    func send(_ word: String) {
        signal(SIGPIPE, SIG_IGN)
        try? input.fileHandleForWriting.write(contentsOf: Data((word + "\n").utf8))
    }

    /// Waits for the scene to exit and returns its status (it is killed after `seconds`).
    func finish(seconds: Double = 120) -> Int32 {
        let giveUp = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < giveUp { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// `key=value` from a scene's line.
    static func value(_ key: String, in line: String?) -> String? {
        line?.split(separator: " ").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    static func number(_ key: String, in line: String?) -> Double? { value(key, in: line).flatMap(Double.init) }
}
