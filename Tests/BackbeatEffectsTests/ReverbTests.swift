import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatEffects

/// The environment reverb on rendered samples: decay, sends, zones.
@Suite("Environment reverb")
struct ReverbTests {
    /// A 50 ms burst of three mid-band tones (between the reverb's 250 Hz and
    /// 5 kHz references, where the decay time holds).
    static func burst(seconds: Double = 0.05) -> PCMBuffer {
        let frames = Int(seconds * 48_000)
        let samples = (0..<frames).map { i -> Float in
            let t = Double(i) / 48_000
            return Float(0.25 * (sin(2 * .pi * 500 * t) + sin(2 * .pi * 700 * t) + sin(2 * .pi * 1_100 * t)))
        }
        return try! PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: samples)
    }

    /// The RT60 of `samples` (stereo) from the slope of the Schroeder integral
    /// between -5 and -25 dB (T20, extrapolated to 60 dB).
    static func rt60(_ samples: [Float], sampleRate: Double = 48_000) -> Double? {
        let frames = samples.count / 2
        var energy = [Double](repeating: 0, count: frames)
        for i in 0..<frames {
            energy[i] = Double(samples[2 * i] * samples[2 * i] + samples[2 * i + 1] * samples[2 * i + 1])
        }
        var integral = [Double](repeating: 0, count: frames)
        var sum = 0.0
        for i in stride(from: frames - 1, through: 0, by: -1) {
            sum += energy[i]
            integral[i] = sum
        }
        guard let total = integral.first, total > 0 else { return nil }
        var xs: [Double] = []
        var ys: [Double] = []
        for i in stride(from: 0, to: frames, by: 48) {
            let db = 10 * log10(max(integral[i], 1e-30) / total)
            if db <= -5 && db >= -25 {
                xs.append(Double(i) / sampleRate)
                ys.append(db)
            }
        }
        guard xs.count > 10 else { return nil }
        let mx = xs.reduce(0, +) / Double(xs.count)
        let my = ys.reduce(0, +) / Double(ys.count)
        var num = 0.0
        var den = 0.0
        for (x, y) in zip(xs, ys) {
            num += (x - mx) * (y - my)
            den += (x - mx) * (x - mx)
        }
        let slope = num / den  // dB per second, negative
        return slope < 0 ? -60 / slope : nil
    }

    @Test(
        "A preset's tail decays at its decay time within 20% (Schroeder integral, T20)",
        arguments: ["bathroom", "cave", "stonecorridor", "auditorium"])
    func decayTime(preset: String) throws {
        let reverb = try AudioEnvironmentReverbParameters(preset: preset)
        let decay = reverb.decayTime.seconds
        try withOfflineEngine { engine in
            engine.reverbParameters = reverb
            let sound = try SoundEffect(buffer: Self.burst(), name: "burst", engine: engine)
            let voice = sound.play()
            voice.reverbBlend = 1
            voice.filter = .gains(gain: 0, gainLF: 1, gainHF: 1)  // the reverb alone
            _ = try engine.render(frames: 2_400)  // the burst
            let tail = try engine.render(frames: Int((decay * 1.3 + 0.3) * 48_000))
            let measured = try #require(Self.rt60(tail))
            #expect(abs(measured - decay) / decay < 0.2, "\(preset): RT60 \(measured) s for a decay time of \(decay) s")
        }
    }

    @Test("Only voices with a reverb blend feed the reverb, and only while it is enabled")
    func blendAndEnable() throws {
        func tailLevel(blend: Float, enable: Bool) throws -> Float {
            try withOfflineEngine { engine in
                var reverb = try AudioEnvironmentReverbParameters(preset: "hangar")
                reverb.enable = enable
                engine.reverbParameters = reverb
                let sound = try SoundEffect(buffer: Self.burst(), name: "burst", engine: engine)
                let voice = sound.play()
                voice.reverbBlend = blend
                _ = try engine.render(frames: 9_600)
                return SampleAnalysis.rms(try engine.render(frames: 24_000))
            }
        }
        let full = try tailLevel(blend: 1, enable: true)
        let half = try tailLevel(blend: 0.5, enable: true)
        #expect(full > 1e-3)
        #expect(try tailLevel(blend: 0, enable: true) < 1e-6)
        #expect(try tailLevel(blend: 1, enable: false) < 1e-6)
        #expect(abs(20 * log10(Double(half / full)) + 6.02) < 1, "a blend of 0.5 sends 6 dB less")
    }

    @Test("An unknown preset throws unknownReverbPreset; every listed name loads")
    func presets() throws {
        #expect(AudioEnvironmentReverbParameters.presetNames.count == 113)
        for name in AudioEnvironmentReverbParameters.presetNames {
            let p = try AudioEnvironmentReverbParameters(preset: name)
            #expect(p.presetName == name && p.enable)
        }
        let error = #expect(throws: BackbeatError.self) { try AudioEnvironmentReverbParameters(preset: "Hangar ") }
        #expect(error?.code == .unknownReverbPreset)
        #expect(error.map { !"\($0)".contains("\n") } ?? false)
        var p = try AudioEnvironmentReverbParameters(preset: "cave")
        p.level = .nan
        p.level = 12
        #expect(p.level == 0)
        p.decayTime = MediaTime(seconds: 100)
        #expect(p.decayTime.seconds == 20 && p.presetName == nil)
    }

    @Test(
        "Zone blending is continuous across the boundary: the reverb level moves by no more than the fade allows per step"
    )
    func zoneBlend() throws {
        try withOfflineEngine { engine in
            let cave = try AudioEnvironmentReverbParameters(preset: "cave")
            engine.reverbZones = [
                ReverbZone(name: "cave", shape: .sphere(center: .zero, radius: 5), fadeDistance: 4, reverb: cave)
            ]
            let sound = try toneEffect(700, on: engine)
            let voice = sound.play(looping: .forever)
            voice.reverbBlend = 1
            voice.filter = .gains(gain: 0, gainLF: 1, gainHF: 1)
            engine.listenerPosition = Audio3DPoint(x: 3, y: 0, z: 0)
            _ = try engine.render(frames: 9_600)  // the reverb fades in, the tail builds up
            // Walk out of the cave at 0.02 m per update step (4 m/s), from 3 m to 11 m.
            var gains: [Float] = []
            var levels: [Float] = []
            var x: Float = 3
            while x <= 11 {
                engine.listenerPosition = Audio3DPoint(x: x, y: 0, z: 0)
                let block = try engine.render(frames: engine.updateInterval)
                gains.append(engine.withLock { engine.environmentLocked.appliedGain })
                levels.append(SampleAnalysis.rms(block))
                x += 0.02
            }
            let largestStep = zip(gains, gains.dropFirst()).map { abs($1 - $0) }.max() ?? 1
            // The weight falls by 0.02 / 4 per step; a glide may lag but never jumps.
            #expect(largestStep <= 0.02 / 4 + 1e-4, "largest step in the reverb level: \(largestStep)")
            #expect(gains.first == 1 && gains.last == 0)
            let inside = levels[0..<50].reduce(0, +) / 50
            #expect(inside > 1e-3, "the reverb sounds inside the zone")
            #expect(levels.suffix(20).allSatisfy { $0 < inside * 0.1 }, "and fades out beyond the fade distance")
        }
    }

    @Test("An exponential reverb-level glide falls at a constant rate in dB, on the slot and in the rendered reverb")
    func exponentialLevelGlide() throws {
        // The wet level of a steady noise through the reverb alone (the direct path filtered out),
        // per 50 ms block, while the level glides from 0 dB to -40 dB over one second.
        func render(_ curve: FadeCurve) throws -> (gains: [Float], blocks: [Float], before: Float) {
            try withOfflineEngine { engine in
                var hall = try AudioEnvironmentReverbParameters(preset: "concerthall")
                engine.reverbParameters = hall
                var seed: UInt64 = 5
                let noise = (0..<48_000).map { _ -> Float in
                    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return Float(Int64(bitPattern: seed >> 11) % 1_000) / 2_000
                }
                let sound = try SoundEffect(
                    buffer: try PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: noise),
                    name: "noise", engine: engine)
                let voice = sound.play(looping: .forever)
                voice.reverbBlend = 1
                voice.filter = .gains(gain: 0, gainLF: 1, gainHF: 1)
                _ = try engine.render(frames: 93_600)  // the tail builds up to a steady level
                let before = SampleAnalysis.rms(try engine.render(frames: 2_400))
                hall.level = -40
                engine.setReverbParameters(hall, over: MediaTime(seconds: 1), curve: curve)
                var gains: [Float] = []
                var blocks: [Float] = []
                for _ in 0..<(48_000 / engine.updateInterval) {
                    let block = try engine.render(frames: engine.updateInterval)
                    gains.append(engine.withLock { engine.environmentLocked.appliedGain })
                    blocks.append(SampleAnalysis.rms(block))
                }
                return (gains, blocks, before)
            }
        }
        let exponential = try render(.exponential)
        let linear = try render(.linear)
        // The slot: each step's gain is the curve's value at the step's end, in dB a straight line.
        let steps = exponential.gains.count
        for (i, g) in exponential.gains.enumerated() {
            let expected = -40 * Float(i + 1) / Float(steps)
            #expect(abs(20 * log10(g) - expected) < 0.05, "step \(i): \(20 * log10(g)) dB, the curve says \(expected)")
        }
        #expect(abs(linear.gains[steps / 2 - 1] - 0.505) < 0.01, "linear: halfway in gain")
        // The rendered reverb follows: each 50 ms block against the steady block before the glide,
        // in dB, within 1.5 dB of the straight line (the reverb's own fluctuation), and well
        // below the linear glide's level mid-way.
        let perBlock = 48_000 / 20 / (48_000 / steps)
        func decibels(_ r: (gains: [Float], blocks: [Float], before: Float), _ b: Int) -> Float {
            let level = SampleAnalysis.rms(Array(r.blocks[(b * perBlock)..<((b + 1) * perBlock)]))
            return 20 * log10(level / r.before)
        }
        for b in 0..<19 {
            let expected = -40 * (Float(b) + 0.5) / 20
            let heard = decibels(exponential, b)
            #expect(abs(heard - expected) < 1.5, "block \(b): \(heard) dB, the curve says \(expected)")
        }
        #expect(decibels(linear, 10) > decibels(exponential, 10) + 10)
    }

    @Test("Overlapping zones and the game-wide reverb share the weight; weights stay within 0...1")
    func zoneWeights() throws {
        let room = try AudioEnvironmentReverbParameters(preset: "room")
        let a = ReverbZone(
            name: "a", shape: .box(center: .zero, size: Audio3DPoint(x: 4, y: 4, z: 4)), fadeDistance: 2, reverb: room)
        #expect(a.weight(at: Audio3DPoint(x: 1.9, y: 0, z: 0)) == 1)
        #expect(abs(a.weight(at: Audio3DPoint(x: 3, y: 0, z: 0)) - 0.5) < 1e-6)
        #expect(a.weight(at: Audio3DPoint(x: 5, y: 0, z: 0)) == 0)
        #expect(a.weight(at: Audio3DPoint(x: .nan, y: 0, z: 0)) == 0)
        let hard = ReverbZone(name: "b", shape: .sphere(center: .zero, radius: .nan), fadeDistance: -3, reverb: room)
        #expect(hard.fadeDistance == 0 && hard.weight(at: Audio3DPoint(x: 0.5, y: 0, z: 0)) == 0)
        try withOfflineEngine { engine in
            var hall = try AudioEnvironmentReverbParameters(preset: "concerthall")
            hall.level = -6
            engine.reverbParameters = hall
            engine.reverbZones = [a, a]
            let mixer = engine.withLock { engine.environmentLocked }
            let inside = engine.withLock { mixer.reverb(at: .zero) }
            #expect(abs(inside.gain - 1) < 1e-6, "two zones at full weight share it; the game-wide reverb gets none")
            let half = engine.withLock { mixer.reverb(at: Audio3DPoint(x: 3.5, y: 0, z: 0)) }
            #expect(abs(half.gain - (0.5 + 0.5 * pow(10, -6.0 / 20))) < 1e-4)
        }
    }
}
