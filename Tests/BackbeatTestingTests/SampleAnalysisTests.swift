import Backbeat
import BackbeatTesting
import Foundation
import Testing

/// BackbeatTesting's measurements, on signals whose answers are known and on
/// an engine's render.
@Suite struct SampleAnalysisTests {
    @Test("The level at a frequency reads a sine's amplitude there and little elsewhere")
    func levelAtAFrequency() {
        let tone = TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.5), amplitude: 0.5).interleavedFloats
        #expect(abs(SampleAnalysis.level(of: tone, atFrequency: 440, sampleRate: 48_000) - 0.5) < 0.01)
        #expect(SampleAnalysis.level(of: tone, atFrequency: 1_000, sampleRate: 48_000) < 0.01)
        #expect(abs(SampleAnalysis.level(of: tone, inBand: 400...480, sampleRate: 48_000) - 0.5) < 0.02)
        #expect(SampleAnalysis.level(of: tone, inBand: 2_000...3_000, sampleRate: 48_000) < 0.01)
        #expect(SampleAnalysis.level(of: [], atFrequency: 440, sampleRate: 48_000) == 0)
    }

    @Test("Onsets are where sound starts after quiet, not a tone's own zero crossings")
    func onsetsOfClicks() {
        var samples = [Float](repeating: 0, count: 8_000)
        for start in [1_000, 5_000] {
            for i in start..<(start + 480) { samples[i] = 0.4 * Float(sin(Double(i) * 0.3)) }
        }
        #expect(SampleAnalysis.onsetFrames(samples, channels: 1) == [1_000, 5_000])
        #expect(SampleAnalysis.onsetFrames(samples, channels: 1, minimumGap: 5_000) == [1_000])
        #expect(SampleAnalysis.onsetFrames([Float](repeating: 0, count: 100), channels: 1).isEmpty)
    }

    @Test("Hits are read in one channel, a hold-off apart, over a bed that is never silent")
    func hitsOverABed() {
        // Stereo: a 0.05 bed in the left channel, hits of 0.5 at 1,000 and 6,000 lasting 2,000 frames,
        // and a louder hit in the right channel only, at 3,000.
        var samples = [Float](repeating: 0, count: 2 * 10_000)
        for frame in 0..<10_000 { samples[2 * frame] = 0.05 }
        for start in [1_000, 6_000] {
            for frame in start..<(start + 2_000) { samples[2 * frame] = 0.5 }
        }
        samples[2 * 3_000 + 1] = 0.9
        #expect(SampleAnalysis.hitFrames(samples, of: 2, threshold: 0.3, holdOff: 2_500) == [1_000, 6_000])
        #expect(SampleAnalysis.hitFrames(samples, channel: 1, of: 2, threshold: 0.3, holdOff: 2_500) == [3_000])
        // A hold-off shorter than a hit finds the hit again: the hold-off is what separates hits.
        #expect(
            SampleAnalysis.hitFrames(samples, of: 2, threshold: 0.3, holdOff: 1_500) == [1_000, 2_500, 6_000, 7_500])
        #expect(SampleAnalysis.hitFrames(samples, of: 2, threshold: 0.01, holdOff: 20_000) == [0])
    }

    @Test("A tone's zero-crossing frequency is its pitch, a dropout in it changes nothing, and silence has none")
    func zeroCrossingFrequency() {
        let one = TestSignal.sine(frequency: 1_000, duration: MediaTime(seconds: 0.9)).interleavedFloats
        #expect(abs((SampleAnalysis.zeroCrossingFrequency(one, sampleRate: 48_000) ?? 0) - 1_000) < 0.5)
        // 8 ms silent mid-recording: the crossing count says 991 Hz, the spacing still 1000.
        var dropped = one
        for i in 20_000..<20_384 { dropped[i] = 0 }
        let counted = Double(SampleAnalysis.risingZeroCrossings(dropped)) * 48_000 / Double(dropped.count)
        #expect(counted < 995)
        #expect(abs((SampleAnalysis.zeroCrossingFrequency(dropped, sampleRate: 48_000) ?? 0) - 1_000) < 0.5)
        let other = TestSignal.sine(frequency: 991, duration: MediaTime(seconds: 0.9)).interleavedFloats
        #expect(abs((SampleAnalysis.zeroCrossingFrequency(other, sampleRate: 48_000) ?? 0) - 991) < 0.5)
        #expect(SampleAnalysis.zeroCrossingFrequency([Float](repeating: 0, count: 4_800), sampleRate: 48_000) == nil)
    }

    @Test("Onset times of scheduled hits in a render are the times they were scheduled for")
    func onsetsOfScheduledHits() throws {
        try withOfflineEngine { engine in
            let hit = try SoundEffect(buffer: TestSignal.constant(0.5, frames: 480), name: "hit", engine: engine)
            let times = [MediaTime(frames: 4_800, sampleRate: 48_000), MediaTime(frames: 14_400, sampleRate: 48_000)]
            for time in times { hit.play(at: time) }
            let out = try engine.render(frames: 24_000)
            #expect(SampleAnalysis.onsetTimes(out, channels: 2, sampleRate: 48_000) == times)
            let recorder = EventRecorder(engine)
            hit.play()
            _ = try engine.render(frames: 4_800)
            #expect(recorder.events.contains { if case .voiceFinished(_, "hit", true) = $0 { true } else { false } })
        }
    }
}
