import Backbeat
import BackbeatTelemetry
import BackbeatTestFixtures
import BackbeatTesting
import Testing

@testable import BackbeatEngine

@Suite("Monitor commands")
struct TelemetryCommandApplyTests {
    /// The level of `frequency` in the left channel of `samples`.
    private func level(_ samples: [Float], _ frequency: Double) -> Float {
        SampleAnalysis.level(of: SampleAnalysis.channel(samples, 0, of: 2), atFrequency: frequency, sampleRate: 48_000)
    }

    /// A 440 Hz tone on the music bus and a 1 kHz tone on the effects bus, looping.
    private func scene(_ engine: AudioEngine) throws {
        try toneEffect(440, on: engine).play(looping: .forever, bus: engine.musicBus)
        try toneEffect(1_000, on: engine).play(looping: .forever)
        _ = try engine.render(frames: 4_800)
    }

    /// Applies `assignment` as the server would; nil when applied, else the error line.
    private func set(_ engine: AudioEngine, _ assignment: String) throws -> String? {
        switch engine.applyTelemetry(try TelemetrySetting(assignment: assignment)) {
        case .success: nil
        case .failure(let error): error.message
        }
    }

    private func bus(_ engine: AudioEngine, _ name: String) throws -> TelemetrySnapshot.Bus {
        try #require(engine.withLock { engine.telemetrySnapshotLocked() }.buses.first { $0.name == name })
    }

    @Test("bus.music.mute=on silences the music's tone and shows in the snapshot; off brings it back")
    func mute() throws {
        try withOfflineEngine { engine in
            try scene(engine)
            let before = try engine.render(frames: 9_600)
            #expect(try set(engine, "bus.music.mute=on") == nil)
            _ = try engine.render(frames: 2_400)
            let muted = try engine.render(frames: 9_600)
            #expect(level(muted, 440) < 1e-4)
            #expect(abs(level(muted, 1_000) - level(before, 1_000)) < 1e-3)
            #expect(engine.musicBus.isMuted)
            #expect(try bus(engine, "music").muted)
            #expect(try set(engine, "bus.music.mute=off") == nil)
            _ = try engine.render(frames: 2_400)
            #expect(abs(level(try engine.render(frames: 9_600), 440) - level(before, 440)) < 1e-3)
        }
    }

    @Test("bus.effects.solo=on leaves only the effects' tone")
    func solo() throws {
        try withOfflineEngine { engine in
            try scene(engine)
            #expect(try set(engine, "bus.effects.solo=on") == nil)
            _ = try engine.render(frames: 2_400)
            let out = try engine.render(frames: 9_600)
            #expect(level(out, 440) < 1e-4 && level(out, 1_000) > 0.05)
            #expect(try bus(engine, "effects").soloed)
            #expect(try !bus(engine, "music").soloed)
        }
    }

    @Test("bus.music.volume=0.25 glides the music's tone to a quarter, as the public setter does")
    func volume() throws {
        try withOfflineEngine { engine in
            try scene(engine)
            let steady = try engine.render(frames: 9_600)
            let before = level(steady, 440)
            #expect(try set(engine, "bus.music.volume=0.25") == nil)
            let glide = try engine.render(frames: 2_400)
            #expect(
                SampleAnalysis.maxJump(glide, channels: 2) <= SampleAnalysis.maxJump(steady, channels: 2),
                "no click: no step larger than the tones' own")
            let after = level(try engine.render(frames: 9_600), 440)
            #expect(abs(after / before - 0.25) < 0.01)
            #expect(engine.musicBus.volume == 0.25)
            let music = try bus(engine, "music")
            #expect(music.volume == 0.25 && abs(music.effectiveGain - 0.25) < 1e-6)
        }
    }

    @Test("parameter.NAME sets the value; the heard value follows at its slew")
    func parameter() throws {
        try withOfflineEngine { engine in
            let intensity = try GameParameter(name: "intensity", slewPerSecond: 1, engine: engine)
            #expect(try set(engine, "parameter.intensity=0.8") == nil)
            #expect(intensity.value == 0.8)
            _ = try engine.render(frames: 24_000)
            let snapshot = engine.withLock { engine.telemetrySnapshotLocked() }
            let row = try #require(snapshot.parameters.first)
            #expect(row.name == "intensity" && abs(row.value - 0.8) < 1e-6)
            #expect(abs(row.current - 0.5) < 0.01, "half a second at 1 per second")
            #expect(row.minimum == 0 && row.maximum == 1)
        }
    }

    @Test("Unknown names get one line naming the known ones")
    func unknownNames() throws {
        try withOfflineEngine { engine in
            let speed = try GameParameter(name: "speed", range: 0...300, engine: engine)
            #expect(try set(engine, "bus.x.volume=1") == "no bus named \"x\" (master, music, effects)")
            #expect(
                try set(engine, "parameter.rain=1") == "no parameter named \"rain\" (speed)")
            #expect(try set(engine, "snapshot.combat=on") == "snapshot.combat: nothing in this game takes it")
            #expect(speed.value == 0, "nothing changed")
        }
    }

    @Test("A malformed or unknown command changes nothing: the render is identical to one without it")
    func failedCommandsChangeNothing() throws {
        func render(commands: Bool) throws -> [Float] {
            try withOfflineEngine { engine in
                let speed = try GameParameter(name: "speed", range: 0...300, engine: engine)
                defer { withExtendedLifetime(speed) {} }
                try scene(engine)
                if commands {
                    for line in [
                        #"{"op":"set","key":"bus.nope.volume","value":0}"#,
                        #"{"op":"set","key":"parameter.nope","value":3}"#,
                        #"{"op":"set","key":"snapshot.nope","value":"on"}"#,
                        #"{"op":"set","key":"voice.12.stop","value":true}"#,
                    ] {
                        guard case .set(let setting) = try TelemetryCommand(line: Array(line.utf8)).action else {
                            Issue.record("not a set: \(line)")
                            continue
                        }
                        if case .success = engine.applyTelemetry(setting) { Issue.record("applied: \(line)") }
                    }
                    for line in [#"{"op":"set","key":"bus.music.volume","value":-1}"#, "{not json", #"{"op":"dance"}"#]
                    {
                        #expect(throws: TelemetryCommandError.self) { try TelemetryCommand(line: Array(line.utf8)) }
                    }
                }
                return try engine.render(frames: 24_000)
            }
        }
        #expect(try render(commands: true) == render(commands: false))
    }
}
