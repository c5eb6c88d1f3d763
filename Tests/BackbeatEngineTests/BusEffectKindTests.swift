import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// The bus effects beyond echo, ring modulator and equalizer, on rendered samples.
@Suite("Bus effect kinds")
struct BusEffectKindTests {
    private func db(_ a: Float, _ b: Float) -> Double { 20 * log10(Double(a) / Double(b)) }

    /// The left channel of a looping tone (peak `amplitude`) on a bus carrying
    /// `effect` (nil: no bus effect) after it settles.
    private func tone(
        _ frequency: Double, amplitude: Float = 0.5, _ effect: BusEffect?, frames: Int = 24_000
    ) throws -> [Float] {
        try withOfflineEngine { engine in
            let bus = engine.makeBus(named: "fx")
            if let effect { try bus.setEffect(effect) }
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: frequency, duration: MediaTime(seconds: 1), amplitude: amplitude),
                name: "tone", engine: engine)
            sound.play(looping: .forever, bus: bus)
            _ = try engine.render(frames: 9_600)
            return SampleAnalysis.channel(try engine.render(frames: frames), 0, of: 2)
        }
    }

    private func at(_ out: [Float], _ f: Double) -> Float {
        SampleAnalysis.level(of: out, atFrequency: f, sampleRate: 48_000)
    }

    /// The frequency (to 1 Hz) of the strongest component within `band`.
    private func peakFrequency(_ out: [Float], in band: ClosedRange<Int>) -> Int {
        band.max { at(out, Double($0)) < at(out, Double($1)) } ?? band.lowerBound
    }

    @Test("The compressor raises a quiet tone by 6 dB and lowers two loud tones in phase, against compressor off")
    func compressor() throws {
        // OpenAL Soft 1.19's compressor is an automatic gain control: the gain
        // is the inverse of the wet signal's envelope, held within 0.5...2.
        func level(_ amplitude: Float, voices: Int, _ enabled: Bool) throws -> Float {
            try withOfflineEngine { engine in
                let bus = engine.makeBus(named: "fx")
                try bus.setEffect(.compressor(enabled: enabled))
                let sound = try SoundEffect(
                    buffer: TestSignal.sine(frequency: 1_000, duration: MediaTime(seconds: 1), amplitude: amplitude),
                    name: "tone", engine: engine)
                for _ in 0..<voices { sound.play(looping: .forever, bus: bus) }
                _ = try engine.render(frames: 9_600)
                return SampleAnalysis.rms(SampleAnalysis.channel(try engine.render(frames: 24_000), 0, of: 2))
            }
        }
        let quietOn = try level(0.1, voices: 1, true)
        let quietOff = try level(0.1, voices: 1, false)
        #expect(abs(db(quietOn, quietOff) - 6.02) < 0.5, "quiet: \(db(quietOn, quietOff)) dB")
        let loudOn = try level(0.8, voices: 2, true)
        let loudOff = try level(0.8, voices: 2, false)
        #expect(db(loudOn, loudOff) < -2, "loud: \(db(loudOn, loudOff)) dB")
        // Off, the slot passes the wet signal unchanged: the level of no bus effect.
        let dry = SampleAnalysis.rms(try tone(1_000, amplitude: 0.1, nil))
        #expect(abs(db(quietOff, dry)) < 0.1, "off vs no effect: \(db(quietOff, dry)) dB")
    }

    @Test("Distortion puts energy at three times a pure tone's frequency, where the dry tone has none")
    func distortion() throws {
        let dry = try tone(1_000, nil)
        let wet = try tone(1_000, .distortion())
        let loud = try tone(1_000, .distortion(gain: 0))
        #expect(at(dry, 3_000) < at(dry, 1_000) / 10_000, "dry 3 kHz \(at(dry, 3_000))")
        #expect(at(wet, 3_000) > at(wet, 1_000) / 4, "3 kHz \(at(wet, 3_000)) vs 1 kHz \(at(wet, 1_000))")
        // gain is the output level: -26 dB (EFX's default 0.05) against 0 dB.
        #expect(abs(db(SampleAnalysis.rms(loud), SampleAnalysis.rms(wet)) - 26) < 1)
    }

    @Test("A pitch shifter at +12 semitones moves a 440 Hz tone's peak to 880 Hz, at +7 to 659 Hz, at -3 to 370 Hz")
    func pitchShifter() throws {
        for (semitones, expected) in [(Float(12), 880), (7, 659), (-3, 370)] {
            let out = try tone(440, .pitchShifter(semitones: semitones))
            let peak = peakFrequency(out, in: (expected - 40)...(expected + 40))
            #expect(abs(peak - expected) <= 2, "\(semitones) semitones: peak at \(peak) Hz")
            #expect(at(out, Double(expected)) > 10 * at(out, 440), "\(semitones): 440 Hz remains")
        }
    }

    @Test("A frequency shifter by 100 Hz moves 1000 Hz up to 1100 Hz, or down to 900 Hz, within OpenAL's 11.7 Hz step")
    func frequencyShifter() throws {
        let up = try tone(1_000, .frequencyShifter(frequency: 100))
        let peakUp = peakFrequency(up, in: 1_050...1_150)
        #expect(abs(peakUp - 1_100) <= 12, "up: peak at \(peakUp) Hz")
        #expect(at(up, Double(peakUp)) > 10 * at(up, 1_000))
        let down = try tone(1_000, .frequencyShifter(frequency: 100, direction: .down))
        let peakDown = peakFrequency(down, in: 850...950)
        #expect(abs(peakDown - 900) <= 12, "down: peak at \(peakDown) Hz")
        let off = try tone(1_000, .frequencyShifter(frequency: 100, direction: .off))
        #expect(peakFrequency(off, in: 850...1_150) == 1_000)
    }

    /// The left channel of a 1-kHz song played by a music player, with
    /// `effect` on the music bus at `wetDryMix`, after it settles.
    private func music(_ effect: BusEffect?, wetDryMix: Float = 1) throws -> [Float] {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("song.wav")
            try Songs.write(Songs.sineFrames(0..<96_000, frequency: 1_000), to: url)
            return try withOfflineEngine { engine in
                if let effect { try engine.musicBus.setEffect(effect, wetDryMix: wetDryMix) }
                let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: url)])
                player.play()
                _ = try engine.render(frames: 9_600)
                return SampleAnalysis.channel(try engine.render(frames: 24_000), 0, of: 2)
            }
        }
    }

    @Test(
        "Music players feed the music bus's effect as voices do: a frequency shifter moves a 1-kHz song to 1100 Hz, half of it at a 0.5 wet/dry mix"
    )
    func musicFeedsTheBusEffect() throws {
        let dry = try music(nil)
        let wet = try music(.frequencyShifter(frequency: 100))
        let half = try music(.frequencyShifter(frequency: 100), wetDryMix: 0.5)
        #expect(peakFrequency(dry, in: 950...1_150) == 1_000)
        let peak = peakFrequency(wet, in: 1_050...1_150)
        #expect(abs(peak - 1_100) <= 12, "peak at \(peak) Hz")
        #expect(
            at(wet, Double(peak)) > 10 * at(wet, 1_000), "1 kHz \(at(wet, 1_000)) left beside \(at(wet, Double(peak)))")
        // Half through the effect, half left direct: both, each about 6 dB under the whole.
        #expect(abs(db(at(half, 1_000), at(dry, 1_000)) + 6) < 1, "direct \(db(at(half, 1_000), at(dry, 1_000))) dB")
        #expect(abs(db(at(half, Double(peak)), at(wet, Double(peak))) + 6) < 1)
    }

    @Test("Out-of-range values of the new kinds are typed errors naming the value, and NaN never reaches OpenAL")
    func badParameters() throws {
        try withOfflineEngine { engine in
            let bus = engine.makeBus(named: "fx")
            let bad: [BusEffect] = [
                .distortion(edge: 1.5), .distortion(gain: 3), .distortion(gain: .nan), .distortion(lowPassCutoff: 20),
                .distortion(eqCenter: 30_000), .distortion(eqBandwidth: .infinity), .pitchShifter(semitones: 13),
                .pitchShifter(semitones: .nan), .frequencyShifter(frequency: -1), .frequencyShifter(frequency: .nan),
                .frequencyShifter(frequency: 30_000), .chorus(phase: 200), .chorus(rate: 11), .chorus(depth: .nan),
                .chorus(feedback: -2), .chorus(delay: MediaTime(seconds: 0.02)), .flanger(phase: .nan),
                .flanger(rate: -1), .flanger(depth: 2), .flanger(feedback: 1.5),
                .flanger(delay: MediaTime(seconds: 0.005)), .autowah(attackTime: .zero),
                .autowah(releaseTime: MediaTime(seconds: 2)), .autowah(resonance: 1), .autowah(peakGain: 100),
                .autowah(peakGain: .nan),
            ]
            for effect in bad {
                do {
                    try bus.setEffect(effect)
                    Issue.record("\(effect) was accepted")
                } catch let error as BackbeatError {
                    #expect(error.code == .invalidArgument)
                    #expect(!error.description.contains("\n"))
                    #expect(error.description.contains("outside"), "\(error)")
                }
                #expect(bus.effect == nil)
            }
        }
    }

    /// The level of each 10 ms window, in dB relative to the loudest.
    private func envelope(_ out: [Float]) -> [Double] {
        let levels = stride(from: 0, to: out.count - 479, by: 480).map { SampleAnalysis.rms(out[$0..<($0 + 480)]) }
        let top = levels.max() ?? 1
        return levels.map { db($0, top) }
    }

    /// The amplitude-weighted mean frequency of a 200 Hz sawtooth's first 40 harmonics in `window`.
    private func centroid(_ window: [Float]) -> Double {
        var sum = 0.0
        var weight = 0.0
        for k in 1...40 {
            let f = 200.0 * Double(k)
            let a = Double(at(window, f))
            sum += f * a
            weight += a
        }
        return weight > 0 ? sum / weight : 0
    }

    /// Two seconds of the left channel of a looping 1 kHz tone on a bus carrying `effect` at `mix`.
    private func longTone(_ effect: BusEffect?, mix: Float) throws -> [Float] {
        try withOfflineEngine { engine in
            let bus = engine.makeBus(named: "fx")
            if let effect { try bus.setEffect(effect, wetDryMix: mix) }
            let sound = try toneEffect(1_000, on: engine)
            sound.play(looping: .forever, bus: bus)
            _ = try engine.render(frames: 9_600)
            return SampleAnalysis.channel(try engine.render(frames: 96_000), 0, of: 2)
        }
    }

    @Test("A chorus half wet makes a steady tone's level swing over time and, fully wet, spreads it off its frequency")
    func chorus() throws {
        let dry = envelope(try longTone(nil, mix: 1))
        #expect(dry.min()! > -0.1, "dry swings \(dry.min()!) dB")
        let half = envelope(try longTone(.chorus(), mix: 0.5))
        #expect(half.min()! < -3, "chorus at 0.5 swings only \(half.min()!) dB")
        // Fully wet, the swept delay is a vibrato: sidebands 10 Hz either side
        // are stronger than what is left at 1 kHz.
        let wet = try longTone(.chorus(), mix: 1)
        #expect(at(wet, 990) > at(wet, 1_000) && at(wet, 1_010) > at(wet, 1_000))
        #expect(SampleAnalysis.rms(wet) > 0.05)
    }

    @Test(
        "A flanger half wet sweeps a notch across a steady tone: its level dips by more than 12 dB, the dry tone's not at all"
    )
    func flanger() throws {
        let dry = envelope(try longTone(nil, mix: 1))
        #expect(dry.min()! > -0.1)
        let half = envelope(try longTone(.flanger(), mix: 0.5))
        #expect(half.min()! < -12, "flanger dips only \(half.min()!) dB")
        let slow = envelope(try longTone(.flanger(rate: 0), mix: 0.5))
        #expect(slow.min()! > -1, "an unswept flanger is a fixed comb: \(slow.min()!) dB")
    }

    @Test("An autowah raises a sawtooth's spectral centroid over its attack; dry, the centroid stays put")
    func autowah() throws {
        var saw = [Float](repeating: 0, count: 24_000)
        for i in saw.indices {
            saw[i] = 0.5 * Float(2 * (Double(i) * 200 / 48_000).truncatingRemainder(dividingBy: 1) - 1)
        }
        let buffer = try PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: saw)
        func centroids(_ effect: BusEffect?) throws -> (first: Double, settled: Double) {
            try withOfflineEngine { engine in
                let bus = engine.makeBus(named: "fx")
                if let effect { try bus.setEffect(effect) }
                _ = try engine.render(frames: 4_800)
                try SoundEffect(buffer: buffer, name: "saw", engine: engine).play(bus: bus)
                let out = SampleAnalysis.channel(try engine.render(frames: 24_000), 0, of: 2)
                let start = try #require(SampleAnalysis.firstAudibleFrame(out, channels: 1, threshold: 0.001))
                // 20 ms windows: the first after the onset, and one 180 ms later.
                return (
                    centroid(Array(out[start..<(start + 960)])),
                    centroid(Array(out[(start + 8_640)..<(start + 9_600)]))
                )
            }
        }
        let dry = try centroids(nil)
        #expect(abs(dry.settled / dry.first - 1) < 0.01, "dry centroid \(dry)")
        let wah = try centroids(.autowah())
        #expect(wah.settled > 1.1 * wah.first, "autowah centroid \(wah)")
    }

    /// The left channel of a 100 ms burst of 64 tones between 300 Hz and 2 kHz
    /// (fixed random phases) on a bus carrying `effect`, from the burst's end
    /// for `seconds`.
    private func burstTail(_ effect: BusEffect?, seconds: Double) throws -> [Float] {
        let buffer = try ReverbTail.burst()
        return try withOfflineEngine { engine in
            let bus = engine.makeBus(named: "fx")
            if let effect { try bus.setEffect(effect) }
            _ = try engine.render(frames: 4_800)
            try SoundEffect(buffer: buffer, name: "burst", engine: engine).play(bus: bus)
            _ = try engine.render(frames: 4_800)
            return SampleAnalysis.channel(try engine.render(frames: Int(seconds * 48_000)), 0, of: 2)
        }
    }

    @Test("A bus reverb's tail decays at its preset's decay time within 20 %, and a dry bus has no tail")
    func busReverb() throws {
        let dry = try burstTail(nil, seconds: 0.5)
        #expect(SampleAnalysis.peak(dry[960...]) < 1e-4, "dry tail \(SampleAnalysis.peak(dry[960...]))")
        for name in ["generic", "room", "cave", "hangar"] {
            let preset = try AudioEnvironmentReverbParameters(preset: name)
            let expected = preset.decayTime.seconds
            let tail = try burstTail(.reverb(preset), seconds: expected * 0.7 + 0.3)
            let found = ReverbTail.decayTime(tail)
            guard let measured = found else {
                Issue.record("\(name): no decay found")
                continue
            }
            #expect(abs(measured / expected - 1) < 0.2, "\(name): \(measured) s against \(expected) s")
        }
        // The level is the slot's gain: -12 dB lowers the tail by 12 dB; disabled is silent.
        var quiet = try AudioEnvironmentReverbParameters(preset: "generic")
        let full = SampleAnalysis.rms(try burstTail(.reverb(quiet), seconds: 0.5))
        quiet.level = -12
        let lowered = SampleAnalysis.rms(try burstTail(.reverb(quiet), seconds: 0.5))
        #expect(abs(db(lowered, full) + 12) < 0.5, "level -12: \(db(lowered, full)) dB")
        quiet.enable = false
        #expect(SampleAnalysis.peak(try burstTail(.reverb(quiet), seconds: 0.5)) < 1e-4)
    }

    /// A looping 1 kHz tone on a bus carrying `effect` at wet/dry 0.5, sending
    /// all of itself to the `generic` environment reverb, on a device asking
    /// for `sends` auxiliary sends per source: half a second of it, and 300 ms
    /// from 100 ms after it stops (left channel), and the sends granted.
    private func reverbAndBusEffect(_ effect: BusEffect?, sends: Int = 2) throws -> (
        steady: [Float], tail: [Float], sends: Int
    ) {
        try withOfflineEngine { engine in
            let granted = try engine.withLock { try engine.device.requestAuxiliarySends(sends) }
            engine.reverbParameters = try AudioEnvironmentReverbParameters(preset: "generic")
            let bus = engine.makeBus(named: "fx")
            if let effect { try bus.setEffect(effect, wetDryMix: 0.5) }
            let sound = try toneEffect(1_000, on: engine)
            let voice = sound.play(looping: .forever, bus: bus)
            voice.reverbBlend = 1
            _ = try engine.render(frames: 24_000)
            let steady = SampleAnalysis.channel(try engine.render(frames: 24_000), 0, of: 2)
            voice.stop()
            _ = try engine.render(frames: 4_800)
            let tail = SampleAnalysis.channel(try engine.render(frames: 14_400), 0, of: 2)
            return (steady, tail, granted)
        }
    }

    @Test(
        "A voice on a bus with an effect that also sends to the environment reverb feeds both: the bus effect on its second send, the reverb on its first at full level, and the reverb does not hear the bus effect"
    )
    func busEffectAndReverbSends() throws {
        // The Environments article: the bus effect takes the voice's second send,
        // the environment reverb keeps the first; with two or more sends both apply.
        let plain = try reverbAndBusEffect(nil)
        let both = try reverbAndBusEffect(.ringModulator(frequency: 300))
        try #require(both.sends >= 2, "the device grants \(both.sends) sends")
        // The ring modulator applies: 700 and 1300 Hz, which the reverb alone never makes.
        #expect(at(both.steady, 700) > 0.05 && at(both.steady, 1_300) > 0.05)
        #expect(at(plain.steady, 700) < at(both.steady, 700) / 100)
        // The reverb applies at its full send: the tail at 1 kHz is as loud as
        // with no bus effect (the bus effect's wet/dry does not lower the reverb send).
        let tail = at(both.tail, 1_000)
        let plainTail = at(plain.tail, 1_000)
        #expect(plainTail > 0.001, "no reverb tail: \(plainTail)")
        #expect(abs(db(tail, plainTail)) < 1, "tail \(db(tail, plainTail)) dB against no bus effect")
        // No chaining: the ring modulator's output does not reach the reverb.
        #expect(at(both.tail, 700) < tail / 30 && at(both.tail, 1_300) < tail / 30)
    }

    @Test(
        "On a device granting one send, the reverb keeps it and the bus effect is skipped: no ring modulation, the direct path at full level, the reverb tail unchanged"
    )
    func oneSendKeepsTheReverb() throws {
        let plain = try reverbAndBusEffect(nil, sends: 1)
        let both = try reverbAndBusEffect(.ringModulator(frequency: 300), sends: 1)
        try #require(both.sends == 1, "the device granted \(both.sends) sends")
        // The bus effect is skipped: nothing at 700 or 1300 Hz.
        #expect(at(both.steady, 700) < 1e-3 && at(both.steady, 1_300) < 1e-3)
        // The voice stays fully dry: its 1 kHz (direct and reverb) as with no bus effect.
        let steady = at(both.steady, 1_000)
        let plainSteady = at(plain.steady, 1_000)
        #expect(abs(db(steady, plainSteady)) < 0.1, "1 kHz \(db(steady, plainSteady)) dB against no bus effect")
        // The reverb keeps the one send.
        let tail = at(both.tail, 1_000)
        let plainTail = at(plain.tail, 1_000)
        #expect(plainTail > 0.001, "no reverb tail: \(plainTail)")
        #expect(abs(db(tail, plainTail)) < 0.1, "tail \(db(tail, plainTail)) dB against no bus effect")
    }
}
