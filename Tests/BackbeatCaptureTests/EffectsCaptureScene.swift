import Backbeat
import BackbeatCapture
import BackbeatReplay
import BackbeatTestFixtures
import BackbeatTesting
import Foundation

/// A scene of everything BackbeatEffects records, played on an offline
/// engine: sounds from a file and from memory, voices placed, moved one by
/// one and in batches, glides, filters and sends, a listener that walks,
/// random sound events, reverb and zones, and a snapshot with fades. The
/// tests render it, capture it and replay the capture.
struct EffectsCaptureScene {
    /// A folder of its own, removed by `cleanUp()`.
    let directory: URL
    /// The sound file the scene plays (a 440 Hz tone, 0.4 s).
    let soundURL: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "effects-capture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        soundURL = directory.appendingPathComponent("ping.wav")
        try writeTone(440)
    }

    /// Writes the scene's sound file as a tone of `frequency`.
    func writeTone(_ frequency: Double) throws {
        try writeWAV(TestSignal.sine(frequency: frequency, duration: MediaTime(seconds: 0.4)), to: soundURL)
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// A capture file's place in the scene's folder.
    func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// Renders the scene, capturing it to `capture` when given (from the
    /// engine's first frame, or from `captureFrom` chunks in: the state set
    /// before is then the capture's starting state), and returns every sample.
    ///
    /// - Parameters:
    ///   - capture: Where to capture it, or nil.
    ///   - captureFrom: The chunk at which the capture starts.
    /// - Returns: The rendered samples (stereo, 48 kHz), and the frame the capture started at.
    func render(capture: URL? = nil, captureFrom: Int = 0) throws -> (samples: [Float], captureStart: Int) {
        let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
        defer { engine.shutdown() }
        var session: SessionCapture?
        var samples: [Float] = []
        var captureStart = 0
        let chunk = 2_400  // 50 ms
        func step(_ chunks: Int = 1) throws {
            for _ in 0..<chunks { samples += try engine.render(frames: chunk) }
        }
        if let capture, captureFrom == 0 { session = try engine.startCapture(to: capture) }
        // Set before anything plays: a capture that starts later gets it from the effects' state.
        engine.listenerPosition = Audio3DPoint(x: 0, y: 0, z: 1)
        engine.distanceAttenuationParameters = AudioDistanceAttenuationParameters(
            distanceAttenuationModel: .inverse, referenceDistance: 1, maximumDistance: 50, rolloffFactor: 1)
        engine.reverbParameters = try AudioEnvironmentReverbParameters(preset: "hangar")
        engine.reverbZones = [
            ReverbZone(
                name: "cave", shape: .sphere(center: Audio3DPoint(x: 6, y: 0, z: 0), radius: 2), fadeDistance: 3,
                reverb: try AudioEnvironmentReverbParameters(preset: "cave"))
        ]
        try step(captureFrom)
        if let capture, session == nil {
            captureStart = samples.count / 2
            session = try engine.startCapture(to: capture)
        }

        let ping = SoundEffect(contentsOf: soundURL, engine: engine)
        let tone = try toneEffect(660, on: engine)
        let low = try toneEffect(220, on: engine)
        ping.maximumInstances = 6
        let hit = ping.play(volume: 0.8, pan: -0.4)
        let hum = tone.play(at: nil, volume: 0.5, position: Audio3DPoint(x: 2, y: 0, z: -2), looping: .forever)
        hum.reverbBlend = 0.6
        try step(2)
        hit.setPan(0.7, over: MediaTime(seconds: 0.2), curve: .equalPower)
        hum.setFilter(.lowPass(cutoff: 2_000), over: MediaTime(seconds: 0.1))
        engine.moveListener(to: Audio3DPoint(x: 0.5, y: 0, z: 1))
        try step(2)
        engine.moveListener(
            to: Audio3DPoint(x: 1, y: 0, z: 0.8),
            orientation: Audio3DVectorOrientation(
                forward: Audio3DPoint(x: 0.2, y: 0, z: -1), up: Audio3DPoint(x: 0, y: 1, z: 0)))

        // Emitters moved together, every chunk.
        var swarm: [Voice] = []
        for i in 0..<6 {
            swarm.append(
                low.play(
                    at: nil, volume: 0.2, position: Audio3DPoint(x: Float(i) - 3, y: 0, z: -3), rate: 1 + Float(i) / 20,
                    looping: .forever))
        }
        let steps = try SoundEvent(name: "steps", sounds: [ping, tone, low], mode: .random, seed: 7)
        steps.avoidRepeatingLast = 1
        steps.randomization = .init(volumeDecibels: -6...0, pitchCents: -200...200, pan: -1...1)
        for n in 0..<16 {
            let t = Float(n) / 16
            try engine.moveVoices(
                swarm,
                to: swarm.indices.map {
                    Audio3DPoint(x: Float($0) - 3 + sin(t * 6) * 2, y: 0.1 * t, z: -3 + cos(t * 4 + Float($0)))
                })
            if n % 3 == 0 { steps.play(volume: 0.7) }
            if n % 5 == 2 { steps.play(position: Audio3DPoint(x: -1, y: 0, z: -1)) }
            if n == 4 {
                var quiet = MixSnapshot(name: "quiet")
                quiet.buses["effects"] = .init(volume: 0.4, filter: .lowPass(cutoff: 1_500))
                quiet.reverb = try AudioEnvironmentReverbParameters(preset: "cave")
                let active = try engine.activate(quiet, over: MediaTime(seconds: 0.15), curve: .exponential)
                try step()
                try active.release(over: MediaTime(seconds: 0.2))
            }
            if n == 6 {
                swarm[0].volume = 0.05
                swarm[1].stop()
                hum.position = Audio3DPoint(x: 4, y: 0, z: 0)
                hum.velocity = Audio3DPoint(x: 3, y: 0, z: 0)
                engine.setReverbParameters(
                    try AudioEnvironmentReverbParameters(preset: "room"), over: MediaTime(seconds: 0.3))
            }
            if n == 9 {
                steps.reseed(99)
                steps.mode = .shuffle
                try swarm[2].pause()
                try swarm[3].move(to: Audio3DPoint(x: 0, y: 0, z: -1), duration: MediaTime(seconds: 0.3))
            }
            if n == 12 {
                try swarm[2].resume()
                swarm[4].setRate(0.8, over: MediaTime(seconds: 0.2))
                swarm[5].setOcclusion(-20, over: nil)
                engine.listenerAngularOrientation = Audio3DAngularOrientation(yaw: 30, pitch: 0, roll: 0)
            }
            try step()
        }
        hum.setVolume(0, over: MediaTime(seconds: 0.2), curve: .exponential)
        try step(6)
        try session?.stop()
        return (samples, captureStart)
    }

    /// Replays the capture at `capture` and returns its samples.
    ///
    /// - Parameters:
    ///   - capture: The capture file.
    ///   - warnings: Collects the replay's warnings.
    func replay(_ capture: URL, warnings: WarningBox = WarningBox()) throws -> [Float] {
        let output = url("replay-\(UUID().uuidString).wav")
        let replayer = try Replayer(url: capture)
        replayer.warn = { warnings.append($0) }
        _ = try replayer.run(writingTo: output)
        defer { try? FileManager.default.removeItem(at: output) }
        return try SampleAnalysis.samples(contentsOf: output).samples
    }
}

/// Collects warning lines.
final class WarningBox: @unchecked Sendable {
    // @unchecked: the replay calls it on the test's own thread.
    private(set) var lines: [String] = []
    func append(_ line: String) { lines.append(line) }
}

/// Where two renders first differ, as "sample N: a vs b" (nil: the same
/// samples, bit for bit), so a failure says where without diffing a million samples.
func firstDifference(_ a: [Float], _ b: [Float]) -> String? {
    if a.count != b.count { return "lengths \(a.count) and \(b.count)" }
    for i in a.indices where a[i].bitPattern != b[i].bitPattern {
        return "sample \(i) (frame \(i / 2)): \(a[i]) vs \(b[i])"
    }
    return nil
}
