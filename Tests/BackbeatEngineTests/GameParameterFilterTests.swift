import Backbeat
import BackbeatTesting
import Foundation
import Testing

@Suite("GameParameter filter cutoff")
struct GameParameterFilterTests {
    enum Target: CaseIterable { case voice, bus }

    /// Levels of an 8 kHz and a 200 Hz tone in one looping sound whose low-pass
    /// cutoff (on the voice or on its bus) a parameter drives from 5 kHz at 0
    /// to 500 Hz at 1, slewing 2 per second: before the parameter moves, 0.2 s
    /// after it is set to 1 (on its way), and once it has arrived.
    static func levels(_ target: Target) throws -> [(high: Float, low: Float)] {
        try withOfflineEngine { engine in
            let samples = (0..<48_000).map { i -> Float in
                let t = Double(i) / 48_000
                return Float(0.3 * sin(2 * .pi * 8_000 * t) + 0.3 * sin(2 * .pi * 200 * t))
            }
            let loop = try SoundEffect(
                buffer: PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: samples),
                name: "hum", engine: engine)
            let damage = try GameParameter(name: "damage", slewPerSecond: 2, engine: engine)
            let curve = ParameterCurve.linear(from: 5_000, to: 500)
            switch target {
            case .voice:
                loop.play(looping: .forever).bindFilterCutoff(to: damage, curve: curve)
            case .bus:
                let world = engine.makeBus(named: "world")
                world.bindFilterCutoff(to: damage, curve: curve)
                loop.play(looping: .forever, bus: world)
            }
            func measure() throws -> (high: Float, low: Float) {
                let out = SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2)
                return (
                    SampleAnalysis.level(of: out, atFrequency: 8_000, sampleRate: 48_000),
                    SampleAnalysis.level(of: out, atFrequency: 200, sampleRate: 48_000)
                )
            }
            _ = try engine.render(frames: 4_800)
            let before = try measure()
            damage.value = 1
            _ = try engine.render(frames: 9_600)
            let early = try measure()  // 0.2-0.3 s after: heard 0.4-0.6, cutoff 3.2-2.3 kHz
            _ = try engine.render(frames: 48_000)
            return [before, early, try measure()]
        }
    }

    @Test(
        "A parameter moving from 0 to 1 lowers a tone above the cutoff, at its slew, and keeps one below",
        arguments: Target.allCases)
    func cutoffFollowsTheParameter(target: Target) throws {
        let l = try Self.levels(target)
        let (before, early, after) = (l[0], l[1], l[2])
        #expect(before.high > 0.05 && before.low > 0.05, "\(l)")
        #expect(after.high < before.high * 0.1, "the 8 kHz tone is 20 dB down at a 500 Hz cutoff: \(l)")
        #expect(after.low > before.low * 0.7, "the 200 Hz tone stays: \(l)")
        #expect(
            early.high > after.high * 5 && early.high < before.high * 0.95,
            "0.2 s in, the slew is on its way, not at either end: \(l)")
    }
}
