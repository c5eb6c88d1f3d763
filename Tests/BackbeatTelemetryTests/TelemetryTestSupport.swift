import BackbeatSupport
import Foundation
import Glibc
import Testing

@testable import BackbeatTelemetry

/// A private temporary folder, removed after `body`, so that tests never
/// touch the real runtime folder.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    var template = Array("/tmp/backbeat-test-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    let root = String(cString: try #require(made))
    defer { try? FileManager.default.removeItem(atPath: root) }
    return try body(root)
}

/// Commands the handler got, for tests to look at.
final class CommandLog: Sendable {
    let commands = LockedValueBox<[TelemetryCommand]>([])

    var all: [TelemetryCommand] { commands.withLockedValue { $0 } }

    /// A handler that records each command and answers ok, or the error
    /// `refusing` says for it.
    func handler(
        refusing: @escaping @Sendable (TelemetryCommand) -> String? = { _ in nil }
    ) -> @Sendable (TelemetryCommand) -> TelemetryReply {
        { command in
            self.commands.withLockedValue { $0.append(command) }
            if let message = refusing(command) { return .error(message, id: nil) }
            return .ok(id: nil)
        }
    }
}

let testHello = TelemetryHello(pid: getpid(), process: "tests", output: "offline", sampleRate: 48_000)

/// A server at ROOT/backbeat/4242.sock, closed after `body`.
func withServer<T>(
    log: CommandLog = CommandLog(), refusing: @escaping @Sendable (TelemetryCommand) -> String? = { _ in nil },
    _ body: (TelemetryServer, String) throws -> T
) throws -> T {
    try withTemporaryDirectory { (root: String) throws -> T in
        let server = try TelemetryServer(
            path: root + "/backbeat/4242.sock", hello: testHello, handler: log.handler(refusing: refusing))
        defer { server.close() }
        return try body(server, root)
    }
}

/// A snapshot at `time` with `voices` voices.
func makeSnapshot(time: Double, voices: Int = 2) -> TelemetrySnapshot {
    var listed: [TelemetrySnapshot.Voice] = []
    for index in 0..<voices {
        let position: [Double]? = index % 2 == 0 ? [Double(index), 0.5, -2.25] : nil
        let state: TelemetrySnapshot.VoiceState = index % 3 == 0 ? .virtual : .playing
        listed.append(
            TelemetrySnapshot.Voice(
                id: UInt64(index), name: "footstep_\(index).ogg", bus: index % 2 == 0 ? "effects" : "music",
                state: state, reason: state == .virtual ? "voiceLimit" : nil, gainDB: -Double(index) * 0.37,
                position: position))
    }
    return TelemetrySnapshot(
        time: time,
        voices: listed,
        voiceCounts: .init(playing: voices, unlisted: 3),
        buses: [
            .init(
                name: "master", parent: nil, volume: 1, effectiveGain: 1, peakDB: -6.5, rmsDB: -12.25, muted: false,
                soloed: false, paused: false),
            .init(
                name: "music", parent: "master", volume: 0.5, effectiveGain: 0.25, peakDB: -120, rmsDB: -120,
                muted: true, soloed: false, paused: false),
        ],
        parameters: [.init(name: "speed", value: 0.8, current: 0.75, minimum: 0, maximum: 1)],
        snapshots: [.init(name: "pause", active: true)],
        music: [.init(kind: "queue", state: "playing", item: "Song \"One\"", time: 12.5, volume: 1, bus: "music")],
        listener: .init(position: [0, 0, 0], forward: [0, 0, -1]),
        engine: .init(
            sourcesInUse: 3, sourcesTotal: 255, underruns: 0, updateCPUPercent: 1.5, output: "offline",
            sampleRate: 48_000))
}

extension TelemetryClient {
    /// The next line, failing the test if none comes within 10 s (a guard
    /// against a hang, not a timing assertion).
    func next(sourceLocation: SourceLocation = #_sourceLocation) throws -> TelemetryLine? {
        try nextLine(timeout: 10)
    }

    /// Reads lines until one matches, returning it and the lines before it.
    func read(until match: (TelemetryLine) -> Bool) throws -> (TelemetryLine, [TelemetryLine]) {
        var before: [TelemetryLine] = []
        while true {
            let line = try #require(try next())
            if match(line) { return (line, before) }
            before.append(line)
        }
    }

    /// Reads the hello line, which must come first.
    func readHello() throws -> TelemetryHello {
        guard case .hello(let hello) = try next() else {
            Issue.record("the first line was not a hello")
            throw TelemetryClientError("no hello")
        }
        return hello
    }
}

/// Waits until `condition` holds, checking every millisecond for at most 10 s;
/// for server state that no line announces (a client's disconnection).
func waitUntil(_ condition: () -> Bool) -> Bool {
    for _ in 0..<10_000 {
        if condition() { return true }
        usleep(1_000)
    }
    return condition()
}

extension TelemetryLine {
    var snapshot: TelemetrySnapshot? {
        if case .snapshot(let snapshot) = self { return snapshot }
        return nil
    }

    var event: TelemetryEvent? {
        if case .event(let event) = self { return event }
        return nil
    }

    var reply: TelemetryReply? {
        if case .reply(let reply) = self { return reply }
        return nil
    }
}
