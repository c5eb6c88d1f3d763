import Backbeat
import BackbeatEngine
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// Mix snapshots on rendered samples (offline engine, 48 kHz, 240-frame update step).
@Suite("Mix snapshots")
struct MixSnapshotTests {
    private func db(_ a: Float, _ b: Float) -> Double { 20 * log10(Double(a) / Double(b)) }

    private func left(_ out: [Float], _ frame: Int) -> Float { out[2 * frame] }

    /// How late a bus's gain reaches the output: it is computed at the start of each
    /// update step and OpenAL ramps to it across the step, heard after the output latency.
    private func lag(_ engine: AudioEngine) -> Int {
        engine.updateInterval + Int(engine.outputLatency.frames(atSampleRate: engine.sampleRate))
    }

    private func volume(_ value: Float) -> MixSnapshot {
        MixSnapshot(name: "volume \(value)", buses: ["effects": .init(volume: value)])
    }

    @Test("A snapshot's volume transition follows its curve, linear and exponential, within one update period")
    func transitionFollowsCurve() throws {
        try withOfflineEngine { engine in
            _ = try playLoopingConstant(on: engine)
            let level = left(try engine.render(frames: 4_800), 4_799)
            #expect(level > 0.1)
            let linear = try engine.activate(volume(0), over: MediaTime(seconds: 0.5), curve: .linear)
            let out = try engine.render(frames: 24_000)
            // A linear ramp over 100 update periods moves level/100 in one period.
            let periodStep = level * Float(engine.updateInterval) / 24_000
            for frame in [1_200, 6_000, 12_000, 18_000, 23_000] {
                let expected = level * (1 - Float(frame - lag(engine)) / 24_000)
                #expect(
                    abs(left(out, frame) - expected) <= periodStep, "frame \(frame): \(left(out, frame)) vs \(expected)"
                )
            }
            #expect(engine.effectsBus.volume == 1, "the game's own volume is untouched")

            try linear.release()
            let back = try engine.render(frames: 4_800)
            #expect(abs(left(back, 4_799) - level) < level * 1e-3, "release at once returns to the base")

            try engine.activate(volume(0.01), over: MediaTime(seconds: 0.5), curve: .exponential)
            let exp = try engine.render(frames: 24_000)
            // -40 dB over 100 update periods is 0.4 dB a period: within 10^(0.4/20) - 1, under 5 %.
            for frame in [1_200, 6_000, 12_000, 18_000, 23_000] {
                let expected = level * pow(0.01, Float(frame - lag(engine)) / 24_000)
                #expect(
                    abs(left(exp, frame) / expected - 1) < 0.05, "frame \(frame): \(left(exp, frame)) vs \(expected)")
            }
        }
    }

    @Test("The higher priority wins; releasing it glides to the lower one's value, then to the base")
    func priorityAndRelease() throws {
        try withOfflineEngine { engine in
            _ = try playLoopingConstant(on: engine)
            let level = left(try engine.render(frames: 4_800), 4_799)
            let low = try engine.activate(volume(0.5), priority: 1)
            // Activated later but at a lower priority, and with a higher one above: it does not win.
            let high = try engine.activate(volume(0.2), priority: 5)
            try engine.activate(volume(0.9), priority: 0)
            let held = try engine.render(frames: 4_800)
            #expect(abs(left(held, 4_799) / level - 0.2) < 1e-3, "\(left(held, 4_799) / level)")

            // Setting the bus directly while a snapshot holds it changes the base only.
            engine.effectsBus.volume = 0.8
            let still = try engine.render(frames: 2_400)
            #expect(abs(left(still, 2_399) / level - 0.2) < 1e-3)

            try high.release(over: MediaTime(seconds: 0.5))
            let glide = try engine.render(frames: 24_000)
            let periodStep = 0.3 * level * Float(engine.updateInterval) / 24_000
            for frame in [6_000, 12_000, 18_000] {
                let expected = level * (0.2 + 0.3 * Float(frame - lag(engine)) / 24_000)
                #expect(
                    abs(left(glide, frame) - expected) <= periodStep,
                    "frame \(frame): \(left(glide, frame)) vs \(expected)")
            }
            let landed = try engine.render(frames: 2_400)
            #expect(abs(left(landed, 2_399) / level - 0.5) < 1e-3, "\(left(landed, 2_399) / level)")

            // The priority-1 snapshot out, the priority-0 one (0.9) holds the bus; then the base (0.8).
            try low.release()
            let under = try engine.render(frames: 2_400)
            #expect(abs(left(under, 2_399) / level - 0.9) < 1e-3)
        }
        try withOfflineEngine { engine in
            _ = try playLoopingConstant(on: engine)
            let level = left(try engine.render(frames: 4_800), 4_799)
            engine.effectsBus.volume = 0.8
            let only = try engine.activate(volume(0.3), over: MediaTime(seconds: 0.1))
            _ = try engine.render(frames: 9_600)
            try only.release(over: MediaTime(seconds: 0.1), curve: .exponential)
            #expect(only.isReleased)
            let back = try engine.render(frames: 9_600)
            #expect(
                abs(left(back, 9_599) / level - 0.8) < 1e-3,
                "released, the base volume the game set: \(left(back, 9_599) / level)")
        }
    }

    /// The left channel of a looping tone on the effects bus, after `setUp`, once settled.
    private func tone(_ frequency: Double, _ setUp: (AudioEngine) throws -> Void) throws -> [Float] {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: frequency, duration: MediaTime(seconds: 1)), name: "tone",
                engine: engine)
            sound.play(looping: .forever)
            _ = try engine.render(frames: 4_800)
            try setUp(engine)
            _ = try engine.render(frames: 9_600)
            return SampleAnalysis.channel(try engine.render(frames: 24_000), 0, of: 2)
        }
    }

    @Test(
        "A snapshot low-pass lowers a tone at twice its cutoff by 7 dB within 1 dB, without a click, and its release restores it"
    )
    func filterMuffles() throws {
        let muffled = MixSnapshot(name: "muffled", buses: ["effects": .init(filter: .lowPass(cutoff: 1_500))])
        let open = SampleAnalysis.rms(try tone(3_000) { _ in })
        let filtered = SampleAnalysis.rms(try tone(3_000) { engine in try engine.activate(muffled) })
        #expect(abs(db(filtered, open) - Double(AudioFilter.attenuationAtOctave)) < 1, "\(db(filtered, open)) dB")
        try withOfflineEngine { engine in
            let sound = try toneEffect(3_000, on: engine)
            sound.play(looping: .forever)
            let before = SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2)
            let active = try engine.activate(muffled)
            let glide = SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2)
            // A 3 kHz sine at this level moves at most 2π·3000/48000·peak a sample; the filter's glide adds little.
            let peak = before.map(abs).max() ?? 0
            #expect(SampleAnalysis.maxJump(glide, channels: 1) < peak * 0.45, "no click when the filter comes in")
            try active.release()
            _ = try engine.render(frames: 4_800)
            let after = SampleAnalysis.channel(try engine.render(frames: 24_000), 0, of: 2)
            #expect(abs(db(SampleAnalysis.rms(after), open)) < 0.2)
        }
    }

    @Test(
        "A snapshot's equalizer gains glide from the bus's own, and a different kind of effect is set at the midpoint")
    func effectParameters() throws {
        let open = SampleAnalysis.rms(try tone(3_000) { engine in try engine.effectsBus.setEffect(.equalizer()) })
        let cut = SampleAnalysis.rms(
            try tone(3_000) { engine in
                try engine.effectsBus.setEffect(.equalizer())
                try engine.activate(
                    MixSnapshot(name: "cut", buses: ["effects": .init(effect: .equalizer(mid2Gain: -12))]))
            })
        #expect(abs(db(cut, open) + 12) < 1, "\(db(cut, open)) dB")
        let half = SampleAnalysis.rms(
            try tone(3_000) { engine in
                try engine.effectsBus.setEffect(.equalizer())
                try engine.activate(
                    MixSnapshot(name: "cut", buses: ["effects": .init(effect: .equalizer(mid2Gain: -12))]),
                    over: MediaTime(seconds: 100))
            })
        // 0.75 s into a 100 s transition: 0.09 dB of the 12.
        #expect(abs(db(half, open)) < 0.5, "\(db(half, open)) dB")
        try withOfflineEngine { engine in
            let sound = try toneEffect(1_000, on: engine)
            sound.play(looping: .forever)
            try engine.effectsBus.setEffect(.equalizer())
            _ = try engine.render(frames: 4_800)
            try engine.activate(
                MixSnapshot(name: "ring", buses: ["effects": .init(effect: .ringModulator(frequency: 300))]),
                over: MediaTime(seconds: 1))
            func at(_ out: [Float], _ f: Double) -> Float {
                SampleAnalysis.level(of: SampleAnalysis.channel(out, 0, of: 2), atFrequency: f, sampleRate: 48_000)
            }
            _ = try engine.render(frames: 14_400)
            let before = try engine.render(frames: 7_200)  // 0.3 to 0.45 s: still the equalizer
            #expect(at(before, 700) < at(before, 1_000) / 100, "before the midpoint: 700 Hz \(at(before, 700))")
            _ = try engine.render(frames: 7_200)
            let after = try engine.render(frames: 7_200)  // 0.6 to 0.75 s: the ring modulator
            #expect(
                at(after, 700) > 10 * at(after, 1_000),
                "after the midpoint: 700 Hz \(at(after, 700)), 1 kHz \(at(after, 1_000))")
            #expect(engine.effectsBus.effect == .equalizer(), "the game's own effect is kept")
        }
    }

    @Test(
        "A snapshot's effect comes in on a bus without one and goes with its release; a mix alone dries the bus's own")
    func effectOnPlainBusAndMixAlone() throws {
        func at(_ out: [Float], _ f: Double) -> Float {
            SampleAnalysis.level(of: out, atFrequency: f, sampleRate: 48_000)
        }
        let ring = MixSnapshot(name: "ring", buses: ["effects": .init(effect: .ringModulator(frequency: 300))])
        try withOfflineEngine { engine in
            let sound = try toneEffect(1_000, on: engine)
            sound.play(looping: .forever)
            _ = try engine.render(frames: 4_800)
            let active = try engine.activate(ring)
            _ = try engine.render(frames: 4_800)
            let wet = SampleAnalysis.channel(try engine.render(frames: 9_600), 0, of: 2)
            #expect(at(wet, 700) > 10 * at(wet, 1_000), "fully wet: 700 Hz \(at(wet, 700)), 1 kHz \(at(wet, 1_000))")
            try active.release()
            _ = try engine.render(frames: 4_800)
            let dry = SampleAnalysis.channel(try engine.render(frames: 9_600), 0, of: 2)
            #expect(at(dry, 700) < at(dry, 1_000) / 100, "released: 700 Hz \(at(dry, 700)), 1 kHz \(at(dry, 1_000))")
            #expect(engine.effectsBus.effect == nil)
        }
        let dried = try tone(1_000) { engine in
            try engine.effectsBus.setEffect(.ringModulator(frequency: 300), wetDryMix: 1)
            try engine.activate(MixSnapshot(name: "dry", buses: ["effects": .init(wetDryMix: 0)]))
        }
        #expect(at(dried, 700) < at(dried, 1_000) / 100, "mix 0: 700 Hz \(at(dried, 700)), 1 kHz \(at(dried, 1_000))")
    }

    @Test("Blending two effects of a kind interpolates each parameter; other kinds switch at the midpoint")
    func effectBlend() throws {
        let pairs: [(BusEffect, BusEffect, BusEffect)] = [
            (
                .echo(delay: MediaTime(seconds: 0.1), feedback: 0.2),
                .echo(delay: MediaTime(seconds: 0.2), feedback: 0.4),
                .echo(delay: MediaTime(seconds: 0.15), feedback: 0.3)
            ),
            (.ringModulator(frequency: 100), .ringModulator(frequency: 300), .ringModulator(frequency: 200)),
            (.equalizer(mid2Gain: 0), .equalizer(mid2Gain: -12), .equalizer(mid2Gain: -6)),
            (.pitchShifter(semitones: 0), .pitchShifter(semitones: 12), .pitchShifter(semitones: 6)),
            (.distortion(edge: 0.25), .distortion(edge: 0.75), .distortion(edge: 0.5)),
            (.autowah(peakGain: 10), .autowah(peakGain: 20), .autowah(peakGain: 15)),
            (.chorus(rate: 1), .chorus(rate: 3), .chorus(rate: 2)),
            (.flanger(depth: 0.25), .flanger(depth: 0.75), .flanger(depth: 0.5)),
        ]
        for (from, to, half) in pairs {
            #expect(from.blended(toward: to, fraction: 0.5) == half, "\(from) to \(to)")
            #expect(from.blended(toward: to, fraction: 0) == from)
            #expect(from.blended(toward: to, fraction: 1) == to)
            try from.blended(toward: to, fraction: 0.37).validate()
        }
        let eq = BusEffect.equalizer()
        let echo = BusEffect.echo(delay: MediaTime(seconds: 0.1))
        #expect(eq.blended(toward: echo, fraction: 0.49) == eq)
        #expect(eq.blended(toward: echo, fraction: 0.5) == echo)
        #expect(BusEffect.compressor(enabled: false).blended(toward: .compressor(), fraction: 0.6) == .compressor())
    }

    @Test(
        "A snapshot's bus reverb over the bus's own glides: halfway through, the tail decays at the two presets' mean decay time"
    )
    func busReverbGlides() throws {
        let room = try AudioEnvironmentReverbParameters(preset: "room")
        let cave = try AudioEnvironmentReverbParameters(preset: "cave")
        let half = BusEffect.reverb(room).blended(toward: .reverb(cave), fraction: 0.5)
        guard case .reverb(let blended) = half else {
            Issue.record("room to cave blended into \(half)")
            return
        }
        let mean = (room.decayTime.seconds + cave.decayTime.seconds) / 2
        #expect(abs(blended.decayTime.seconds - mean) < 1e-3)
        #expect(abs(blended.level - (room.level + cave.level) / 2) < 1e-4)
        let burst = try ReverbTail.burst()
        try withOfflineEngine { engine in
            let bus = engine.makeBus(named: "fx")
            try bus.setEffect(.reverb(room))
            _ = try engine.activate(
                MixSnapshot(name: "cave", buses: ["fx": .init(effect: .reverb(cave))]), over: MediaTime(seconds: 40))
            // Halfway, the reverb moves 0.06 s of decay time a second: it holds still for one tail.
            _ = try engine.render(frames: 48_000 * 20 - 4_800)
            try SoundEffect(buffer: burst, name: "burst", engine: engine).play(bus: bus)
            _ = try engine.render(frames: 4_800)
            let tail = SampleAnalysis.channel(try engine.render(frames: 48_000 * 2), 0, of: 2)
            let measured = try #require(ReverbTail.decayTime(tail))
            // A switch at the midpoint would decay as the cave, 2.91 s; the room's is 0.40 s.
            #expect(abs(measured / mean - 1) < 0.2, "\(measured) s against the mean \(mean) s")
        }
    }

    @Test("A snapshot's reverb is heard behind a burst while it is active, and not after its release")
    func reverb() throws {
        try withOfflineEngine { engine in
            let burst = try SoundEffect(
                buffer: TestSignal.sine(frequency: 1_000, duration: MediaTime(seconds: 0.02)), name: "burst",
                engine: engine)
            /// The level 0.1 to 0.3 s after a burst's end, over the burst's own.
            func tail() throws -> Double {
                let voice = burst.play()
                voice.reverbBlend = 1
                let out = SampleAnalysis.channel(try engine.render(frames: 19_200), 0, of: 2)
                let start = SampleAnalysis.firstAudibleFrame(out, channels: 1, threshold: 0.01) ?? 0
                let dry = SampleAnalysis.rms(out[start..<(start + 960)])
                let late = SampleAnalysis.rms(out[(start + 5_760)..<(start + 15_360)])
                return db(max(late, 1e-9), dry)
            }
            let none = try tail()
            let cave = try engine.activate(
                MixSnapshot(name: "cave", reverb: try AudioEnvironmentReverbParameters(preset: "cave")))
            _ = try engine.render(frames: 4_800)
            let wet = try tail()
            #expect(none < -80, "no reverb: \(none) dB")
            #expect(wet > -40, "cave snapshot: \(wet) dB")
            try cave.release()
            _ = try engine.render(frames: 48_000)
            let released = try tail()
            #expect(released < -80, "released: \(released) dB")
        }
    }

    @Test("Bad snapshots and durations are typed errors naming the value, and change nothing")
    func badInput() throws {
        try withOfflineEngine { engine in
            _ = try playLoopingConstant(on: engine)
            let level = left(try engine.render(frames: 4_800), 4_799)
            func code(_ body: () throws -> Void) -> BackbeatError.Code? {
                do { try body() } catch let error as BackbeatError { return error.code } catch { return nil }
                return nil
            }
            #expect(code { try engine.activate(volume(0), over: MediaTime(seconds: -1)) } == .invalidArgument)
            #expect(
                code { try engine.activate(volume(0), over: MediaTime(value: 1 << 40, timescale: 1)) }
                    == .invalidArgument)
            #expect(code { try engine.activate(volume(.nan)) } == .invalidArgument)
            #expect(code { try engine.activate(volume(1.5)) } == .invalidArgument)
            let unknown = MixSnapshot(name: "x", buses: ["effects": .init(volume: 0), "dialogue": .init(volume: 0)])
            #expect(code { try engine.activate(unknown) } == .unknownBus)
            let echo = MixSnapshot(name: "x", buses: ["effects": .init(effect: .echo(delay: MediaTime(seconds: 1)))])
            #expect(code { try engine.activate(echo) } == .invalidArgument)
            let mix = MixSnapshot(name: "x", buses: ["effects": .init(wetDryMix: -0.5)])
            #expect(code { try engine.activate(mix) } == .invalidArgument)
            do {
                try engine.activate(unknown)
            } catch let error as BackbeatError {
                #expect(error.description.contains("dialogue"), "\(error)")
                #expect(!error.description.contains("\n"))
            }
            let out = try engine.render(frames: 2_400)
            #expect(abs(left(out, 2_399) - level) < level * 1e-3, "a rejected snapshot changes nothing")
            let good = try engine.activate(volume(0.5))
            #expect(code { try good.release(over: MediaTime(seconds: -0.1)) } == .invalidArgument)
            #expect(!good.isReleased)
        }
    }
}
