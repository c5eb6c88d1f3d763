import Backbeat
import BackbeatTelemetry
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatEngine

/// Monitoring end to end: a real socket, a real client, an offline engine
/// whose time moves only when the test renders.
@Suite("Monitoring over the socket")
struct MonitoringSocketTests {
    /// Longest wall-clock wait for a line the game has already sent: a bound
    /// on a hang, not a timing the test depends on.
    private let patience = 20.0

    /// The first line `pick` accepts, skipping the others (events, earlier snapshots).
    private func next<T>(_ client: TelemetryClient, _ pick: (TelemetryLine) -> T?) throws -> T {
        for _ in 0..<1_000 {
            guard let line = try client.nextLine(timeout: patience) else { break }
            if let value = pick(line) { return value }
        }
        throw TelemetryClientError("the line never came")
    }

    private func snapshot(_ line: TelemetryLine) -> TelemetrySnapshot? {
        if case .snapshot(let snapshot) = line { snapshot } else { nil }
    }

    private func reply(_ id: Int) -> (TelemetryLine) -> TelemetryReply? {
        { line in if case .reply(let reply) = line, reply.id == id { reply } else { nil } }
    }

    /// Runs `body` with an offline engine monitoring on a socket in a
    /// temporary folder, and a client connected to it (closed afterwards).
    ///
    /// - Parameter body: takes the engine, the folder and the client.
    private func withMonitoredEngine(_ body: (AudioEngine, URL, TelemetryClient) throws -> Void) throws {
        try withTemporaryDirectory { dir in
            try withOfflineEngine { engine in
                let path = dir.appendingPathComponent("m.sock")
                try engine.startMonitoring(socketPath: path)
                let client = try TelemetryClient(path: path.path)
                defer { client.close() }
                try body(engine, dir, client)
            }
        }
    }

    /// A full-scale sine song (3 s) played by a queue player on the music bus.
    private func playSong(on engine: AudioEngine, in dir: URL) throws -> QueuePlayer {
        let url = dir.appendingPathComponent("song.wav")
        try Songs.write(Songs.sineFrames(0..<144_000, amplitude: 1), to: url)
        let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: url)])
        player.play()
        return player
    }

    @Test("A client asks a rate, reads snapshots whose time follows engine time, and turns the music down")
    func roundTrip() throws {
        try withTemporaryDirectory { dir in
            try withOfflineEngine { engine in
                let path = dir.appendingPathComponent("m.sock")
                #expect(try engine.startMonitoring(socketPath: path) == path)
                #expect(engine.isMonitoring)
                let player = try playSong(on: engine, in: dir)
                _ = try engine.render(frames: 4_800)

                let client = try TelemetryClient(path: path.path)
                defer { client.close() }
                let hello = try next(client) { if case .hello(let hello) = $0 { hello } else { nil } }
                #expect(hello.pid == getpid() && hello.output == "offline" && hello.sampleRate == 48_000)
                try client.send(TelemetryCommand(id: 1, action: .rate(20)))
                #expect(try next(client, reply(1)).type == "ok")

                // One snapshot per 1/20 s of engine time, stamped with the engine time it was built at.
                var times: [Double] = []
                var levels: [Double] = []
                for _ in 0..<10 {
                    _ = try engine.render(frames: 2_400)
                    let snapshot = try next(client, snapshot)
                    times.append(snapshot.time)
                    levels.append(snapshot.buses.first { $0.name == "music" }?.rmsDB ?? -120)
                    #expect(snapshot.music.first?.kind == "queue")
                    #expect(snapshot.engine.updateCPUPercent > 0, "the steps are timed while a client asks")
                }
                #expect(times.first == 0.1, "the first step after the client asked")
                #expect(zip(times, times.dropFirst()).allSatisfy { abs($1 - $0 - 0.05) < 1e-9 }, "\(times)")
                #expect(levels.dropFirst().allSatisfy { abs($0 - (-3)) < 0.5 }, "a full-scale sine: \(levels)")

                let loud = try engine.render(frames: 4_800)
                _ = try next(client, snapshot)
                try client.send(TelemetryCommand(id: 2, action: .set(.busVolume(bus: "music", volume: 0))))
                #expect(try next(client, reply(2)) == .ok(id: 2))
                _ = try engine.render(frames: 2_400)
                let quiet = try engine.render(frames: 4_800)
                let after = try next(client) { line in
                    snapshot(line).flatMap { $0.buses.first { $0.name == "music" }?.volume == 0 ? $0 : nil }
                }
                #expect(after.buses.first { $0.name == "music" }?.effectiveGain == 0)
                #expect(engine.musicBus.volume == 0)
                #expect(SampleAnalysis.rms(quiet) < SampleAnalysis.rms(loud) / 1_000, "the samples drop")
                withExtendedLifetime(player) {}
            }
        }
    }

    @Test("An unknown bus gets one error line naming the buses; the sound is unchanged")
    func errorReply() throws {
        try withMonitoredEngine { engine, _, client in
            try client.send(TelemetryCommand(id: 7, action: .set(.busMute(bus: "drums", muted: true))))
            #expect(
                try next(client, reply(7))
                    == .error("no bus named \"drums\" (master, music, effects)", id: 7))
            #expect(!engine.masterBus.isMuted && !engine.musicBus.isMuted && !engine.effectsBus.isMuted)
        }
    }

    @Test("A sound that fails to load is an event line")
    func loadFailedEvent() throws {
        try withMonitoredEngine { engine, dir, client in
            try client.send(TelemetryCommand(id: 1, action: .rate(10)))
            _ = try next(client, reply(1))
            let missing = SoundEffect(contentsOf: dir.appendingPathComponent("nope.wav"), engine: engine)
            missing.play()
            _ = try engine.render(frames: 4_800)
            let event = try next(client) { line in
                if case .event(let event) = line, event.event == .loadFailed { event } else { nil }
            }
            #expect(event.name == "nope.wav")
            #expect(event.message?.contains("nope.wav") == true)
        }
    }

    @Test("stopMonitoring and shutdown remove the socket; the client sees the end")
    func stopRemovesTheSocket() throws {
        try withTemporaryDirectory { dir in
            let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
            let path = dir.appendingPathComponent("m.sock")
            try engine.startMonitoring(socketPath: path)
            #expect(try engine.startMonitoring(socketPath: dir.appendingPathComponent("other.sock")) == path)
            #expect(FileManager.default.fileExists(atPath: path.path))
            let client = try TelemetryClient(path: path.path)
            defer { client.close() }
            _ = try next(client) { if case .hello(let hello) = $0 { hello } else { nil } }
            engine.stopMonitoring()
            #expect(!engine.isMonitoring)
            #expect(!FileManager.default.fileExists(atPath: path.path))
            #expect(try client.nextLine(timeout: patience) == nil, "the game closed the connection")

            try engine.startMonitoring(socketPath: path)
            #expect(FileManager.default.fileExists(atPath: path.path))
            engine.shutdown()
            #expect(!FileManager.default.fileExists(atPath: path.path))
        }
    }

    @Test("A second engine cannot serve the same socket: one line, a typed error")
    func secondEngineRefused() throws {
        try withTemporaryDirectory { dir in
            try withOfflineEngine { first in
                try withOfflineEngine { second in
                    let path = dir.appendingPathComponent("m.sock")
                    try first.startMonitoring(socketPath: path)
                    let error = #expect(throws: BackbeatError.self) { try second.startMonitoring(socketPath: path) }
                    #expect(error?.code == .monitoringUnavailable)
                    #expect(error?.description.contains("another engine in this process") == true)
                    #expect(!second.isMonitoring && first.isMonitoring)
                }
            }
        }
    }

    @Test("BACKBEAT_MONITOR=1 starts monitoring when asked; 0 or unset does not")
    func environmentVariable() throws {
        try withTemporaryDirectory { dir in
            try withOfflineEngine { engine in
                let path = dir.appendingPathComponent("env.sock")
                engine.startMonitoringIfAsked(environment: [:], socketPath: path)
                engine.startMonitoringIfAsked(environment: ["BACKBEAT_MONITOR": "0"], socketPath: path)
                #expect(!engine.isMonitoring)
                engine.startMonitoringIfAsked(environment: ["BACKBEAT_MONITOR": "1"], socketPath: path)
                #expect(engine.isMonitoring)
                #expect(FileManager.default.fileExists(atPath: path.path))
            }
        }
    }

    @Test("A monitor with a client attached does not change the sound: bit-identical renders")
    func clientIsInaudible() throws {
        func render(monitored: Bool) throws -> [Float] {
            try withTemporaryDirectory { dir in
                try withOfflineEngine { engine in
                    var client: TelemetryClient?
                    if monitored {
                        let path = dir.appendingPathComponent("m.sock")
                        try engine.startMonitoring(socketPath: path)
                        client = try TelemetryClient(path: path.path)
                        try client?.send(TelemetryCommand(id: 1, action: .rate(60)))
                        _ = try client.map { try next($0, reply(1)) }
                    }
                    defer { client?.close() }
                    let player = try playSong(on: engine, in: dir)
                    try toneEffect(1_000, on: engine).play(looping: .forever)
                    var out: [Float] = []
                    for _ in 0..<20 { out += try engine.render(frames: 2_400) }
                    withExtendedLifetime(player) {}
                    return out
                }
            }
        }
        #expect(try render(monitored: true) == render(monitored: false))
    }

    @Test("A lost output device is a deviceLost event line")
    func deviceLostEvent() throws {
        try withMonitoredEngine { engine, _, client in
            _ = try next(client) { if case .hello(let hello) = $0 { hello } else { nil } }
            engine.simulateDeviceLoss()
            let event = try next(client) { line in
                if case .event(let event) = line, event.event == .deviceLost { event } else { nil }
            }
            #expect(event.message?.contains("lost") == true)
        }
    }
}
