import Backbeat
import BackbeatEffects
import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL
import Foundation

/// The scene the `mix` suite renders twice, once through Backbeat and once
/// through raw OpenAL: a few generated sounds (mono and stereo, one at
/// 44.1 kHz so OpenAL resamples it) and voices that loop them at seeded
/// gains and pans. Every voice loops, so the voice count holds for the whole
/// render.
package struct MixScene: Sendable {
    /// One voice: which sound, at what gain and pan, looping or not.
    package struct VoiceSpec: Sendable {
        /// Index into ``MixScene/sounds``.
        package let sound: Int
        /// Linear gain, 0...1.
        package let gain: Float
        /// -1 (left) ... 1 (right).
        package let pan: Float
        /// Loops until stopped (Backbeat: `looping: .forever`; raw: `AL_LOOPING`).
        package let looping: Bool
    }

    /// The sounds, decoded.
    package let sounds: [PCMBuffer]
    /// The voices, in the order both sides start them.
    package let voices: [VoiceSpec]
    /// Output rate of both sides.
    package let sampleRate: Int
    /// Whether every voice sends to a reverb blended from two zones, behind
    /// an occlusion and under an effects-bus low-pass (the raw side gets the
    /// same EFX slot, filters and sends).
    package var environment = false

    /// The environment scene's two zones: the listener at the origin stands
    /// half-way into the fade of each.
    static let zones: [ReverbZone] = [
        ReverbZone(
            name: "cave", shape: .sphere(center: Audio3DPoint(x: -6, y: 0, z: 0), radius: 4), fadeDistance: 4,
            reverb: try! AudioEnvironmentReverbParameters(preset: "cave")),
        ReverbZone(
            name: "hall", shape: .sphere(center: Audio3DPoint(x: 6, y: 0, z: 0), radius: 4), fadeDistance: 4,
            reverb: try! AudioEnvironmentReverbParameters(preset: "hallway")),
    ]
    static let occlusion: Float = -12
    static let busFilter = AudioFilter.lowPass(cutoff: 2_000)
    static let reverbBlend: Float = 0.5

    /// A scene of `voiceCount` looping voices, the same for the same seed.
    package init(voiceCount: Int, seed: UInt64 = 0x5EED, sampleRate: Int = 48_000) {
        self.sampleRate = sampleRate
        sounds = MixScene.makeSounds()
        var random = SeededRandom(seed: seed)
        voices = (0..<voiceCount).map { i in
            VoiceSpec(
                sound: i % 4,
                gain: Float(0.1 + 0.8 * random.nextUnit()),
                pan: Float(2 * random.nextUnit() - 1),
                looping: true)
        }
    }

    private static func makeSounds() -> [PCMBuffer] {
        var random = SeededRandom(seed: 42)
        func mono(rate: Int, seconds: Double, _ sample: (Double) -> Double) -> PCMBuffer {
            let frames = Int(seconds * Double(rate))
            let floats = (0..<frames).map { Float(sample(Double($0) / Double(rate))) }
            return try! PCMBuffer(format: AudioFormat(sampleRate: rate, channelCount: 1), floats: floats)
        }
        let tone = mono(rate: 48_000, seconds: 1) { t in
            0.4 * sin(2 * .pi * 220 * t) + 0.2 * sin(2 * .pi * 660 * t)
        }
        let frames = 36_000
        var noise = [Float](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            let envelope = 0.5 + 0.5 * sin(2 * .pi * 3 * Double(i) / 48_000)
            noise[2 * i] = Float(0.3 * envelope * (2 * random.nextUnit() - 1))
            noise[2 * i + 1] = Float(0.3 * envelope * (2 * random.nextUnit() - 1))
        }
        let stereoNoise = try! PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 2), floats: noise)
        let resampled = mono(rate: 44_100, seconds: 0.5) { t in 0.5 * sin(2 * .pi * 330 * t) }
        let chirpFrames = 60_000
        var chirp = [Float](repeating: 0, count: chirpFrames * 2)
        for i in 0..<chirpFrames {
            let t = Double(i) / 48_000
            let phase = 2 * .pi * (200 * t + 300 * t * t)
            chirp[2 * i] = Float(0.4 * sin(phase))
            chirp[2 * i + 1] = Float(0.4 * cos(phase))
        }
        let stereoChirp = try! PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 2), floats: chirp)
        return [tone, stereoNoise, resampled, stereoChirp]
    }

    // MARK: The two sides

    /// The Backbeat side, ready to render: an offline engine with the scene's
    /// sounds resident and every voice started, in order.
    package final class BackbeatSide {
        /// The engine rendering the scene.
        package let engine: AudioEngine
        /// Kept alive: a sound's buffer goes with it.
        let effects: [SoundEffect]
        /// The voices, in scene order.
        package let voices: [Voice]

        init(_ scene: MixScene) throws {
            let engine = try AudioEngine(output: .offline(sampleRate: scene.sampleRate, channels: 2))
            self.engine = engine
            do {
                let effects = try scene.sounds.enumerated().map { i, pcm in
                    try SoundEffect(buffer: pcm, name: "mix\(i)", engine: engine)
                }
                self.effects = effects
                voices = scene.voices.map { spec in
                    effects[spec.sound].play(volume: spec.gain, pan: spec.pan, looping: spec.looping ? .forever : .once)
                }
                if scene.environment {
                    engine.reverbZones = MixScene.zones
                    engine.effectsBus.filter = MixScene.busFilter
                    for voice in voices {
                        voice.reverbBlend = MixScene.reverbBlend
                        voice.occlusion = MixScene.occlusion
                    }
                    // Past the de-zipper glides: the steady state is what is measured.
                    var warm = [Float](repeating: 0, count: 9_600 * 2)
                    try engine.render(frames: 9_600, reusing: &warm)
                }
            } catch {
                engine.shutdown()
                throw error
            }
            guard voices.allSatisfy({ $0.state == .playing }) else {
                let audible = voices.filter { $0.state == .playing }.count
                engine.shutdown()
                throw BenchError("Backbeat made \(audible) of \(scene.voices.count) voices audible")
            }
        }

        /// Frames per render call (one update period, as a device would mix).
        package var chunk: Int { engine.updateInterval }

        /// Renders `frames` frames into `samples` (reused).
        package func render(frames: Int, into samples: inout [Float]) throws {
            try engine.render(frames: frames, reusing: &samples)
        }

        /// Shuts the engine down.
        package func close() { engine.shutdown() }
    }

    /// The raw-OpenAL side, ready to render: a loopback device with the
    /// scene's sounds in buffers and every voice playing, in order.
    package final class RawSide {
        let baseline: OpenALBaseline
        /// Frames per render call: the same as the Backbeat side's update period.
        package let chunk: Int

        init(_ scene: MixScene, chunk: Int) throws {
            baseline = try OpenALBaseline(sampleRate: scene.sampleRate, channels: 2)
            self.chunk = chunk
            for pcm in scene.sounds { _ = try baseline.addSound(pcm) }
            for spec in scene.voices {
                _ = try baseline.addVoice(sound: spec.sound, gain: spec.gain, pan: spec.pan, looping: spec.looping)
            }
            if scene.environment {
                let mixer = environmentReverb(zones: MixScene.zones, at: Audio3DPoint.zero)
                let occluded = FilterGains(decibels: MixScene.occlusion, lowFrequencyRatio: 0.25)
                let bus = MixScene.busFilter.gains(sampleRate: scene.sampleRate)
                var send = occluded.then(bus)
                send.gain *= MixScene.reverbBlend
                try baseline.addEnvironment(
                    reverb: mixer, direct: occluded.then(bus).alParameters, send: send.alParameters)
            }
            baseline.playAll()
            if scene.environment {
                // As long as the Backbeat side warms up, so both measure the same stretch.
                var warm = [Float](repeating: 0, count: 9_600 * 2)
                baseline.render(frames: 9_600, into: &warm, chunk: chunk)
            }
        }

        /// Renders `frames` frames into `samples` (reused).
        package func render(frames: Int, into samples: inout [Float]) {
            baseline.render(frames: frames, into: &samples, chunk: chunk)
        }

        /// Closes the device.
        package func close() { baseline.close() }
    }

    /// Starts the scene through Backbeat.
    package func startBackbeat() throws -> BackbeatSide { try BackbeatSide(self) }

    /// Starts the scene through raw OpenAL, rendering in calls of `chunk` frames.
    package func startRaw(chunk: Int) throws -> RawSide { try RawSide(self, chunk: chunk) }

    /// Renders `frames` frames of the scene on both sides and returns both outputs.
    package func renderBoth(frames: Int) throws -> (backbeat: [Float], raw: [Float]) {
        let a = try startBackbeat()
        defer { a.close() }
        let b = try startRaw(chunk: a.chunk)
        defer { b.close() }
        var left = [Float](repeating: 0, count: frames * 2)
        var right = left
        try a.render(frames: frames, into: &left)
        b.render(frames: frames, into: &right)
        return (left, right)
    }
}
