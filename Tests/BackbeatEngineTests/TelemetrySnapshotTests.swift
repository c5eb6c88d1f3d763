import Backbeat
import BackbeatTelemetry
import BackbeatTestFixtures
import BackbeatTesting
import Testing

@testable import BackbeatEngine

@Suite("Monitor snapshots")
struct TelemetrySnapshotTests {
    @Test("A snapshot lists every bus, the master first, with parents, settings and engine figures")
    func contents() throws {
        try withOfflineEngine { engine in
            let dialogue = engine.makeBus(named: "dialogue", parent: engine.effectsBus)
            dialogue.volume = 0.5
            engine.effectsBus.isMuted = true
            engine.musicBus.isPaused = true
            _ = try engine.render(frames: 48_000)
            let snapshot = engine.withLock { engine.telemetrySnapshotLocked() }
            #expect(snapshot.type == "snapshot" && snapshot.version == TelemetryProtocol.version)
            #expect(snapshot.time == 1)
            #expect(snapshot.buses.map(\.name) == ["master", "music", "effects", "dialogue"])
            #expect(snapshot.buses.map(\.parent) == [nil, "master", "master", "effects"])
            let row = snapshot.buses[3]
            #expect(row.volume == 0.5 && row.effectiveGain == 0, "its parent is muted")
            #expect(!row.muted && snapshot.buses[2].muted && snapshot.buses[1].paused && !snapshot.buses[0].paused)
            #expect(snapshot.buses.allSatisfy { $0.rmsDB == -120 && $0.peakDB == -120 }, "nothing plays")
            #expect(snapshot.engine.output == "offline" && snapshot.engine.sampleRate == 48_000)
            #expect(snapshot.engine.sourcesTotal >= 16 && snapshot.engine.underruns == 0)
            #expect(snapshot.engine.updateCPUPercent == 0, "no client asked: the steps are not timed")
        }
    }

    @Test("Monitoring does not change the sound: renders with and without it are bit-identical")
    func monitoringIsInaudible() throws {
        func render(monitoring: Bool) throws -> [Float] {
            try withOfflineEngine { engine in
                if monitoring { engine.withLock { engine.beginMonitoringLocked() } }
                try toneEffect(440, on: engine).play(looping: .forever, bus: engine.musicBus)
                try toneEffect(1_000, on: engine).play(looping: .forever)
                var out: [Float] = []
                for _ in 0..<10 {
                    out += try engine.render(frames: 4_800)
                    if monitoring { _ = engine.withLock { engine.telemetrySnapshotLocked() } }
                }
                return out
            }
        }
        #expect(try render(monitoring: true) == render(monitoring: false))
    }
}
