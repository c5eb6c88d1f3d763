import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatEffects

/// Volume, rate and pan glides on rendered samples (offline engine, 48 kHz, 240-frame update step).
@Suite("Smooth parameters")
struct SmoothParameterTests {
    private func left(_ out: [Float], _ frame: Int) -> Float { out[2 * frame] }
    private func right(_ out: [Float], _ frame: Int) -> Float { out[2 * frame + 1] }

    @Test("A volume glide follows its curve, linear and exponential, within one update period")
    func volumeGlide() throws {
        try withOfflineEngine { engine in
            let voice = try playLoopingConstant(on: engine)
            let level = left(try engine.render(frames: 4_800), 4_799)
            #expect(level > 0.1)
            voice.setVolume(0, over: MediaTime(seconds: 0.5))
            let out = try engine.render(frames: 24_000)
            let periodStep = level * Float(engine.updateInterval) / 24_000
            for frame in [1_200, 6_000, 12_000, 18_000, 23_000] {
                let expected = level * (1 - Float(frame) / 24_000)
                #expect(
                    abs(left(out, frame) - expected) <= periodStep, "frame \(frame): \(left(out, frame)) vs \(expected)"
                )
            }
            #expect(voice.volume == 0)

            voice.volume = 1
            _ = try engine.render(frames: 4_800)
            voice.setVolume(0.01, over: MediaTime(seconds: 0.5), curve: .exponential)
            let exp = try engine.render(frames: 24_000)
            for frame in [6_000, 12_000, 18_000] {
                // -40 dB over 24 000 frames: a constant rate in decibels.
                let expected = level * pow(0.01, Float(frame) / 24_000)
                let ratio = left(exp, frame) / expected
                #expect(abs(ratio - 1) < 0.05, "frame \(frame): \(left(exp, frame)) vs \(expected)")
            }
        }
    }

    @Test("A path and a volume glide on one voice both run to their ends, the shorter one first")
    func pathAndVolumeTogether() throws {
        try withOfflineEngine { engine in
            let voice = try playLoopingConstant(on: engine)
            voice.position = Audio3DPoint(x: 0, y: 0, z: -1)
            let start = left(try engine.render(frames: 4_800), 4_799)
            #expect(start > 0.05)
            // Straight ahead, 1 m then 2 m away (inverse distance: half the level), over 0.1 s;
            // the volume from 1 to 0.5 over 0.3 s.
            try voice.move(to: Audio3DPoint(x: 0, y: 0, z: -2), duration: MediaTime(seconds: 0.1))
            voice.setVolume(0.5, over: MediaTime(seconds: 0.3))
            let out = try engine.render(frames: 9_600)
            #expect(voice.position == Audio3DPoint(x: 0, y: 0, z: -2))
            let expected = start * 0.5 * (1 - 0.5 * 9_600 / 14_400)
            #expect(abs(left(out, 9_599) / expected - 1) < 0.03, "at 0.2 s: \(left(out, 9_599)) vs \(expected)")
            let after = try engine.render(frames: 9_600)
            #expect(voice.volume == 0.5)
            #expect(abs(left(after, 9_599) / (start * 0.25) - 1) < 0.01, "after: \(left(after, 9_599))")
        }
    }

    @Test("A new glide starts from where the current one is, without a jump")
    func glideRestartsFromCurrent() throws {
        try withOfflineEngine { engine in
            let voice = try playLoopingConstant(on: engine)
            let level = left(try engine.render(frames: 4_800), 4_799)
            voice.setVolume(0, over: MediaTime(seconds: 0.5))
            let first = try engine.render(frames: 12_000)
            voice.setVolume(1, over: MediaTime(seconds: 0.25))
            let second = try engine.render(frames: 12_000)
            let periodStep = level * Float(engine.updateInterval) / 12_000
            #expect(abs(left(second, 0) - left(first, 11_999)) <= periodStep)
            #expect(abs(left(first, 11_999) - level / 2) <= periodStep)
            #expect(abs(left(second, 11_999) - level) <= periodStep)
        }
    }

    @Test("An abrupt volume change has no sample-to-sample step larger than one update period's ramp")
    func volumeDezipper() throws {
        try withOfflineEngine { engine in
            let voice = try playLoopingConstant(on: engine)
            let level = left(try engine.render(frames: 4_800), 4_799)
            voice.volume = 0.1
            let out = try engine.render(frames: 2_400)
            var largest: Float = 0
            var previous = level
            for frame in 0..<2_400 {
                largest = max(largest, abs(left(out, frame) - previous))
                previous = left(out, frame)
            }
            // The whole change spread over one update period, with 5% for rounding.
            let bound = (level - level * 0.1) / Float(engine.updateInterval) * 1.05
            #expect(largest <= bound, "largest step \(largest), bound \(bound)")
            #expect(abs(left(out, 2_399) - level * 0.1) < 1e-4)
        }
    }

    @Test("An abrupt filter change glides over the de-zipper time: no step larger than its dB glide allows")
    func filterDezipper() throws {
        try withOfflineEngine { engine in
            let voice = try playLoopingConstant(on: engine)
            let level = left(try engine.render(frames: 4_800), 4_799)
            voice.filter = .gains(gain: 0.1, gainLF: 1, gainHF: 1)
            let out = try engine.render(frames: 4_800)
            var largest: Float = 0
            var previous = level
            for frame in 0..<4_800 {
                largest = max(largest, abs(left(out, frame) - previous))
                previous = left(out, frame)
            }
            // -20 dB in equal dB steps, one per update period across the de-zipper
            // time; the first (largest) step spread over one period, with 5% for
            // rounding. Stepping the filter at once would be 0.9 × level in one period.
            let interval = engine.updateInterval
            let periods = Float(engine.dezipperDuration.frames(atSampleRate: engine.sampleRate)) / Float(interval)
            #expect(periods >= 2)
            let firstStep = level * (1 - pow(10, -1 / periods))
            let bound = firstStep / Float(interval) * 1.05
            #expect(largest <= bound, "largest step \(largest), bound \(bound)")
            #expect(abs(left(out, 4_799) - level * 0.1) < 1e-3)
        }
    }

    @Test("A pan glide moves the level from the left channel to the right")
    func panGlide() throws {
        try withOfflineEngine { engine in
            let voice = try playLoopingConstant(on: engine)
            voice.pan = -1
            let before = try engine.render(frames: 4_800)
            #expect(left(before, 4_799) > 10 * abs(right(before, 4_799)))
            voice.setPan(1, over: MediaTime(seconds: 0.5))
            let out = try engine.render(frames: 26_400)
            // Pan crosses 0 at frame 12 000; ±0.1 is 1 200 frames either side.
            #expect(left(out, 10_800) > right(out, 10_800))
            #expect(right(out, 13_200) > left(out, 13_200))
            // Stereo panning saturates near the ends: the right channel never
            // falls, and rises through the middle of the glide.
            var previous = right(out, 0)
            for frame in stride(from: 2_400, through: 24_000, by: 2_400) {
                #expect(right(out, frame) >= previous, "right channel falls at \(frame)")
                previous = right(out, frame)
            }
            #expect(right(out, 7_200) < right(out, 9_600))
            #expect(right(out, 9_600) < right(out, 12_000))
            #expect(right(out, 12_000) < right(out, 14_400))
            #expect(right(out, 14_400) < right(out, 16_800))
            #expect(right(out, 26_399) > 10 * abs(left(out, 26_399)))
            #expect(voice.pan == 1)
        }
    }

    /// The frequency of the left channel over `frames` from `start`, by counting zero crossings.
    private func frequency(_ out: [Float], from start: Int, frames: Int) -> Double {
        var crossings = 0
        for frame in (start + 1)..<(start + frames) where (left(out, frame - 1) < 0) != (left(out, frame) < 0) {
            crossings += 1
        }
        return Double(crossings) / 2 / (Double(frames) / 48_000)
    }

    @Test("A rate change with no glide: OpenAL Soft 1.19 steps the pitch at one update boundary, with no click")
    func rateChangeStepsAtOnce() throws {
        try withOfflineEngine { engine in
            let sound = try toneEffect(1_000, on: engine)
            let voice = sound.play(looping: .forever)
            voice.renderingAlgorithm = .stereoPassThrough
            var out = try engine.render(frames: 9_600)
            voice.rate = 1.5
            out += try engine.render(frames: 9_600)
            let left = SampleAnalysis.channel(out, 0, of: 2)
            // Rising zero crossings, placed between frames by linear interpolation.
            var crossings: [Double] = []
            for i in 4_801..<left.count where left[i - 1] < 0 && left[i] >= 0 {
                crossings.append(Double(i - 1) + Double(-left[i - 1] / (left[i] - left[i - 1])))
            }
            let periods = zip(crossings, crossings.dropFirst()).map { (start: $0, length: $1 - $0) }
            // The change is heard on the update step it was sent at (frame 9,600), the output's latency later.
            let step = Double(9_600 + engine.latencyFrames)
            // Every period before it is 1,000 Hz's 48 frames and every one after it 1,500 Hz's 32:
            // OpenAL Soft holds a source's resampling step for a whole mix, so the pitch has no ramp to
            // follow, not even across one update period.
            let before = periods.filter { $0.start + $0.length <= step + 0.01 }
            let after = periods.filter { $0.start >= step - 0.01 }
            #expect(before.count + after.count == periods.count, "no period spans the step")
            #expect(before.allSatisfy { abs($0.length - 48) < 0.01 } && after.allSatisfy { abs($0.length - 32) < 0.01 })
            #expect(after.count > 100 && before.count > 90)
            // And the step is phase-continuous: no sample-to-sample jump beyond the 1,500 Hz sine's own.
            let around = Array(out[((Int(step) - 480) * 2)..<((Int(step) + 480) * 2)])
            let ownStep = SampleAnalysis.peak(around) * 2 * Float.pi * 1_500 / 48_000
            #expect(SampleAnalysis.maxJump(around, channels: 2) <= ownStep * 1.001)
        }
    }

    @Test("A rate glide moves a tone's frequency from start to end")
    func rateGlide() throws {
        try withOfflineEngine { engine in
            let sound = try toneEffect(480, on: engine)
            let voice = sound.play(looping: .forever)
            let before = try engine.render(frames: 4_800)
            #expect(abs(frequency(before, from: 0, frames: 4_800) - 480) < 15)
            voice.setRate(2, over: MediaTime(seconds: 0.5))
            let out = try engine.render(frames: 33_600)
            // Rate 1.5 around frame 12 000 (a 50 ms window), 2 once the glide is over.
            #expect(abs(frequency(out, from: 10_800, frames: 2_400) - 720) < 30)
            #expect(abs(frequency(out, from: 28_800, frames: 4_800) - 960) < 15)
            #expect(voice.rate == 2)
        }
    }
}
