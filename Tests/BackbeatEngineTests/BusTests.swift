import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@Suite("Bus")
struct BusTests {
    /// A bed of constant level on `bus`: the rendered left channel is its gain times 0.5957 × 0.5.
    private func bed(_ engine: AudioEngine, bus: Bus) throws -> Voice {
        let dc = try SoundEffect(buffer: TestSignal.constant(0.5, frames: 48_000), name: "bed", engine: engine)
        return dc.play(looping: .forever, bus: bus)
    }

    @Test(
        "Fades reach their target at the right frame, give or take one update",
        arguments: [
            FadeCurve.linear, .equalPower, .exponential,
        ])
    func fadeLands(curve: FadeCurve) throws {
        try withOfflineEngine { engine in
            _ = try bed(engine, bus: engine.musicBus)
            _ = try engine.render(frames: 4_800)
            let level = SampleAnalysis.channel(try engine.render(frames: 240), 0, of: 2).last!
            let fired = Tally()
            engine.musicBus.fade(to: 0.25, duration: MediaTime(seconds: 0.5), curve: curve) { fired.record(true) }
            let out = SampleAnalysis.channel(try engine.render(frames: 48_000), 0, of: 2)
            let target = level * 0.25
            let landed = try #require(out.firstIndex { abs($0 - target) < 0.001 })
            #expect(abs(landed - 24_000) <= engine.updateInterval + Int(engine.latencyFrames) + 256)
            #expect(abs(out.last! - target) < 1e-4)
            #expect(fired.all == [true])
            // The fade is monotonic: never rises on its way down.
            let steps = stride(from: 0, to: 26_000, by: 240).map { out[$0] }
            #expect(zip(steps, steps.dropFirst()).allSatisfy { $1 <= $0 + 1e-5 })
        }
    }

    @Test("Ducking lowers the bus by its decibels and releases back")
    func duck() throws {
        try withOfflineEngine { engine in
            _ = try bed(engine, bus: engine.musicBus)
            _ = try engine.render(frames: 4_800)
            let full = SampleAnalysis.channel(try engine.render(frames: 240), 0, of: 2).last!
            let duck = engine.musicBus.duck(by: -12, attack: MediaTime(seconds: 0.05), release: MediaTime(seconds: 0.1))
            let down = SampleAnalysis.channel(try engine.render(frames: 9_600), 0, of: 2).last!
            #expect(abs(down / full - 0.2512) < 0.005)
            duck.release()
            let back = SampleAnalysis.channel(try engine.render(frames: 9_600), 0, of: 2).last!
            #expect(abs(back - full) < 1e-4)
        }
    }

    @Test("A duck held until a voice line ends releases by itself")
    func duckUntilVoice() throws {
        try withOfflineEngine { engine in
            _ = try bed(engine, bus: engine.musicBus)
            let line = try SoundEffect(buffer: TestSignal.constant(0.0, frames: 9_600), name: "line", engine: engine)
            _ = try engine.render(frames: 4_800)
            let full = SampleAnalysis.channel(try engine.render(frames: 240), 0, of: 2).last!
            let voice = line.play()
            engine.musicBus.duck(by: -20, attack: .zero, release: MediaTime(seconds: 0.05), until: voice)
            let during = SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2).last!
            #expect(during < full * 0.15)
            let after = SampleAnalysis.channel(try engine.render(frames: 14_400), 0, of: 2).last!
            #expect(abs(after - full) < 1e-4)
        }
    }

    @Test("Mute, pause and stop ramp instead of clicking")
    func declick() throws {
        try withOfflineEngine { engine in
            let tone = try SoundEffect(
                buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 1), amplitude: 1), name: "tone",
                engine: engine)
            let voice = tone.play(looping: .forever)
            var out = try engine.render(frames: 4_801)
            engine.effectsBus.isMuted = true
            out += try engine.render(frames: 4_803)
            #expect(SampleAnalysis.peak(out.suffix(2_000)) == 0)
            engine.effectsBus.isMuted = false
            out += try engine.render(frames: 4_807)
            try voice.pause()
            out += try engine.render(frames: 4_811)
            #expect(SampleAnalysis.peak(out.suffix(2_000)) == 0)
            try voice.resume()
            out += try engine.render(frames: 4_813)
            voice.stop()
            out += try engine.render(frames: 4_817)
            #expect(SampleAnalysis.peak(out.suffix(2_000)) == 0)
            // A 440 Hz sine at 0.5957 moves at most 0.0343 per sample; a cut would jump up to 0.6.
            #expect(SampleAnalysis.maxJump(out, channels: 2) < 0.04)
        }
    }

    @Test("A paused bus holds its voices' time; resuming continues them")
    func busPause() throws {
        try withOfflineEngine { engine in
            let group = engine.makeBus(named: "ui")
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 200, duration: MediaTime(seconds: 1)), name: "s", engine: engine)
            let voice = sound.play(bus: group)
            _ = try engine.render(frames: 9_600)
            group.isPaused = true
            _ = try engine.render(frames: 2_400)
            let held = voice.currentTime
            #expect(SampleAnalysis.peak(try engine.render(frames: 9_600)) == 0)
            #expect(voice.currentTime == held)
            group.isPaused = false
            #expect(SampleAnalysis.rms(try engine.render(frames: 4_800)) > 0.05)
        }
    }

    @Test("Changes made in one batch land on the same frame")
    func batch() throws {
        try withOfflineEngine { engine in
            let a = try SoundEffect(buffer: TestSignal.constant(0.3, frames: 4_800), name: "a", engine: engine)
            let b = try SoundEffect(buffer: TestSignal.constant(0.3, frames: 4_800), name: "b", engine: engine)
            _ = try engine.render(frames: 100)
            try engine.performBatchUpdates {
                a.play(pan: -1)
                b.play(pan: 1)
            }
            let out = try engine.render(frames: 2_000)
            let left = SampleAnalysis.firstAudibleFrame(SampleAnalysis.channel(out, 0, of: 2), channels: 1)
            let right = SampleAnalysis.firstAudibleFrame(SampleAnalysis.channel(out, 1, of: 2), channels: 1)
            #expect(left != nil && left == right)
        }
    }
}
