import Backbeat
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatEngine
@testable import BackbeatMusic

/// Game parameters: slew in engine time, curves, and what they drive (layers, volume, a voice's pitch).
@Suite("GameParameter")
struct GameParameterTests {
    @Test("The heard value follows the value set at most the slew per second of engine time; bad values are refused")
    func slew() throws {
        try withOfflineEngine { engine in
            let p = try GameParameter(name: "intensity", slewPerSecond: 2, engine: engine)
            #expect(p.currentValue == 0)
            p.value = 1
            _ = try engine.render(frames: 12_000)  // 0.25 s: 50 steps of 0.01
            #expect(abs(p.currentValue - 0.5) <= 0.011, "\(p.currentValue)")
            _ = try engine.render(frames: 24_000)
            #expect(p.currentValue == 1)
            p.value = 7
            #expect(p.value == 1, "clamped to the range")
            p.value = .nan
            #expect(p.value == 1, "NaN ignored")
            let speed = try GameParameter(name: "speed", range: 0...300, initialValue: 100, engine: engine)
            speed.value = 250
            _ = try engine.render(frames: 240)
            #expect(speed.currentValue == 250, "no slew: at once")
            #expect(throws: BackbeatError.self) { try GameParameter(name: "x", initialValue: 2, engine: engine) }
            #expect(throws: BackbeatError.self) { try GameParameter(name: "x", slewPerSecond: 0, engine: engine) }
            #expect(throws: BackbeatError.self) {
                try GameParameter(name: "x", range: -Float.infinity...1, engine: engine)
            }
        }
    }

    @Test("Curves: straight lines between points, flat outside; linear over the parameter's range")
    func curves() throws {
        let c = try ParameterCurve(points: [(0.3, 0), (0.7, 1)])
        #expect(c.output(for: 0, in: 0...1) == 0 && c.output(for: 1, in: 0...1) == 1)
        #expect(abs(c.output(for: 0.5, in: 0...1) - 0.5) < 1e-6)
        #expect(ParameterCurve.linear(from: 1, to: 2).output(for: 150, in: 0...300) == 1.5)
        #expect(ParameterCurve.linear.output(for: 0.25, in: 0...1) == 0.25)
        #expect(throws: BackbeatError.self) { try ParameterCurve(points: []) }
        #expect(throws: BackbeatError.self) { try ParameterCurve(points: [(0.5, 0), (0.5, 1)]) }
        #expect(throws: BackbeatError.self) { try ParameterCurve(points: [(0, .nan)]) }
    }

    @Test("Intensity brings the drums layer in through its curve; the bass layer stays")
    func drivesLayer() throws {
        try withTemporaryDirectory { dir in
            var bassSamples = [Float](repeating: 0, count: 96_000 * 2)
            var drumSamples = bassSamples
            for i in 0..<96_000 {
                bassSamples[2 * i] = 0.2
                drumSamples[2 * i + 1] = 0.2
            }
            let bass = dir.appendingPathComponent("bass.wav")
            let drums = dir.appendingPathComponent("drums.wav")
            try Songs.write(bassSamples, to: bass)
            try Songs.write(drumSamples, to: drums)
            try withOfflineEngine { engine in
                let music = try AdaptiveMusicPlayer(
                    engine: engine,
                    sections: [
                        MusicSection(
                            name: "level",
                            stems: [
                                MusicStem(layer: "bass", asset: AudioAsset(url: bass)),
                                MusicStem(layer: "drums", asset: AudioAsset(url: drums)),
                            ])
                    ])
                let intensity = try GameParameter(name: "intensity", engine: engine)
                music.bindLayer("drums", to: intensity, curve: try ParameterCurve(points: [(0.3, 0), (0.7, 1)]))
                try music.play(section: "level")
                var out = try engine.render(frames: 4_800)
                #expect(abs(out[out.count - 2] - 0.2) < 1e-4 && abs(out[out.count - 1]) < 1e-5, "drums silent at 0")
                intensity.value = 0.5
                out = try engine.render(frames: 4_800)
                #expect(abs(out[out.count - 1] - 0.1) < 1e-4, "half way up the curve: \(out[out.count - 1])")
                intensity.value = 0.9
                out = try engine.render(frames: 4_800)
                #expect(abs(out[out.count - 1] - 0.2) < 1e-4 && abs(out[out.count - 2] - 0.2) < 1e-4)
                #expect(music.layerGain("drums") == 1)
            }
        }
    }

    @Test("Speed raises an engine loop's pitch: 480 Hz at rate 1, 960 Hz at the top of the range (counted)")
    func drivesPitch() throws {
        try withOfflineEngine { engine in
            let sine = (0..<48_000).map { Float(0.4 * sin(2 * Double.pi * 480 * Double($0) / 48_000)) }
            let loop = try SoundEffect(
                buffer: PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: sine),
                name: "engine", engine: engine)
            let speed = try GameParameter(name: "speed", range: 0...300, engine: engine)
            let voice = loop.play(looping: .forever)
            voice.bindRate(to: speed, curve: .linear(from: 1, to: 2))
            voice.bindVolume(to: speed, curve: .linear(from: 0.5, to: 1))
            _ = try engine.render(frames: 4_800)
            let slow = try engine.render(frames: 24_000)
            #expect(abs(SampleAnalysis.risingZeroCrossings(SampleAnalysis.channel(slow, 0, of: 2)) - 240) <= 2)
            speed.value = 300
            _ = try engine.render(frames: 4_800)
            let fast = try engine.render(frames: 24_000)
            #expect(abs(SampleAnalysis.risingZeroCrossings(SampleAnalysis.channel(fast, 0, of: 2)) - 480) <= 2)
            #expect(SampleAnalysis.peak(fast) > SampleAnalysis.peak(slow) * 1.5, "the volume curve too")
            #expect(voice.rate == 2)
        }
    }
}
