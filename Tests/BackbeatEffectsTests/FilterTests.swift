import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatEffects

/// Filters, obstruction and occlusion on rendered samples.
@Suite("Filters and occlusion")
struct FilterTests {
    private func db(_ a: Float, _ b: Float) -> Double { 20 * log10(Double(a) / Double(b)) }

    /// The level of a looping tone at `frequency` after it settles, with `configure` applied.
    private func toneLevel(_ frequency: Double, configure: (Voice, AudioEngine) -> Void) throws -> Float {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: frequency, duration: MediaTime(seconds: 1)), name: "tone",
                engine: engine)
            let voice = sound.play(looping: .forever)
            configure(voice, engine)
            _ = try engine.render(frames: 9_600)
            return SampleAnalysis.rms(try engine.render(frames: 24_000))
        }
    }

    @Test(
        "A low-pass cutoff lowers a tone at twice the cutoff by 7 dB, within 1 dB",
        arguments: [Float(500), 1_000, 2_000, 4_000, 8_000])
    func lowPassCutoff(cutoff: Float) throws {
        let open = try toneLevel(Double(2 * cutoff)) { _, _ in }
        let shut = try toneLevel(Double(2 * cutoff)) { voice, _ in voice.filter = .lowPass(cutoff: cutoff) }
        #expect(
            abs(db(shut, open) - Double(AudioFilter.attenuationAtOctave)) < 1,
            "\(db(shut, open)) dB at \(2 * cutoff) Hz")
    }

    @Test(
        "A high-pass cutoff lowers a tone at half the cutoff by 7 dB, within 1 dB",
        arguments: [Float(100), 400, 1_000, 4_000])
    func highPassCutoff(cutoff: Float) throws {
        let open = try toneLevel(Double(cutoff / 2)) { _, _ in }
        let shut = try toneLevel(Double(cutoff / 2)) { voice, _ in voice.filter = .highPass(cutoff: cutoff) }
        #expect(
            abs(db(shut, open) - Double(AudioFilter.attenuationAtOctave)) < 1,
            "\(db(shut, open)) dB at \(cutoff / 2) Hz")
    }

    @Test("A band-pass keeps its band and lowers both sides; raw gains scale the level")
    func bandPassAndGains() throws {
        let filter = AudioFilter.bandPass(lowCutoff: 400, highCutoff: 2_000)
        for (frequency, expected) in [(200.0, -7.0), (1_000.0, 0.0), (4_000.0, -7.0)] {
            let open = try toneLevel(frequency) { _, _ in }
            let shut = try toneLevel(frequency) { voice, _ in voice.filter = filter }
            #expect(abs(db(shut, open) - expected) < 1.5, "\(db(shut, open)) dB at \(frequency) Hz")
        }
        let open = try toneLevel(1_000) { _, _ in }
        let half = try toneLevel(1_000) { voice, _ in voice.filter = .gains(gain: 0.5, gainLF: 1, gainHF: 1) }
        #expect(abs(db(half, open) + 6.02) < 0.2)
    }

    /// Dry and wet levels of a looping 5 kHz tone (the shelves' reference) into the cave reverb.
    private func dryAndWet(_ configure: (Voice) -> Void) throws -> (dry: Float, wet: Float) {
        func level(dry: Bool) throws -> Float {
            try withOfflineEngine { engine in
                engine.reverbParameters = try AudioEnvironmentReverbParameters(preset: "cave")
                let sound = try toneEffect(5_000, on: engine)
                let voice = sound.play(looping: .forever)
                configure(voice)
                if dry {
                    voice.reverbBlend = 0
                } else {
                    // The direct path silenced by the voice's filter, which the send does not see.
                    voice.reverbBlend = 1
                    voice.filter = .gains(gain: 0, gainLF: 1, gainHF: 1)
                }
                _ = try engine.render(frames: 48_000)
                return SampleAnalysis.rms(try engine.render(frames: 24_000))
            }
        }
        return (try level(dry: true), try level(dry: false))
    }

    @Test("Obstruction lowers the direct path only; occlusion lowers the direct path and the reverb send")
    func obstructionAndOcclusion() throws {
        let clear = try dryAndWet { _ in }
        let obstructed = try dryAndWet { $0.obstruction = -30 }
        let occluded = try dryAndWet { $0.occlusion = -30 }
        #expect(clear.dry > 0.1 && clear.wet > 1e-3)
        #expect(abs(db(obstructed.dry, clear.dry) + 30) < 1, "obstruction muffles the direct path by its dB at 5 kHz")
        #expect(abs(db(obstructed.wet, clear.wet)) < 0.1, "and leaves the reverb send as it was")
        #expect(abs(db(occluded.dry, clear.dry) + 30) < 1, "occlusion muffles the direct path by its dB at 5 kHz")
        #expect(abs(db(occluded.wet, clear.wet) + 30) < 1.5, "and the reverb send by as much")
    }

    @Test("Occlusion darkens more than it lowers: -40 dB keeps a low tone louder than a high one")
    func occlusionDarkens() throws {
        let lowOpen = try toneLevel(200) { _, _ in }
        let lowShut = try toneLevel(200) { voice, _ in voice.occlusion = -40 }
        let highOpen = try toneLevel(8_000) { _, _ in }
        let highShut = try toneLevel(8_000) { voice, _ in voice.occlusion = -40 }
        #expect(abs(db(lowShut, lowOpen) + 10) < 1, "a quarter of it broadband")
        #expect(db(highShut, highOpen) < -40)
        let floor = try toneLevel(200) { voice, _ in voice.occlusion = -100 }
        let clamped = try toneLevel(200) { voice, _ in
            voice.occlusion = -1_000
            voice.occlusion = .nan
        }
        #expect(abs(db(clamped, floor)) < 0.01, "clamped to -100 dB; NaN ignored")
        #expect(db(floor, lowOpen) < -25, "-100 dB: -25 dB broadband, and the shelf at its floor")
    }

    @Test("A sudden occlusion glides: no step in the level beyond the de-zipper ramp, no click")
    func noZipper() throws {
        try withOfflineEngine { engine in
            let sound = try toneEffect(1_000, on: engine)
            let voice = sound.play(looping: .forever)
            _ = try engine.render(frames: 4_800)
            let before = try engine.render(frames: 4_800)
            voice.occlusion = -60
            let after = try engine.render(frames: 9_600)
            let all = before + after
            let window = 96  // 2 ms: two periods of the tone
            let levels = stride(from: 0, to: all.count - 2 * window, by: 2 * window).map {
                SampleAnalysis.rms(all[$0..<($0 + 2 * window)])
            }
            let db = levels.map { 20 * log10(Double($0)) }
            let steps = zip(db, db.dropFirst()).map { abs($1 - $0) }
            let total = db.last! - db.first!
            #expect(total < -15, "the occlusion takes effect: \(total) dB")
            // Changed at once it would drop in one window; gliding, it takes the de-zipper time.
            #expect(steps.max()! < abs(total) / 3, "largest step \(steps.max()!) dB of \(total)")
            let began = db.firstIndex { $0 < db.first! - 0.5 }!
            let ended = db.firstIndex { $0 < db.last! + 0.5 }!
            let span = MediaTime(frames: Int64((ended - began) * 2 * window / 2), sampleRate: 48_000)
            #expect(
                span >= engine.dezipperDuration
                    - MediaTime(frames: Int64(engine.updateInterval * 2), sampleRate: 48_000), "over \(span.seconds) s")
            let toneJump = Float(2 * Double.pi * 1_000 / 48_000) * SampleAnalysis.peak(before)
            #expect(SampleAnalysis.maxJump(all, channels: 2) <= toneJump * 1.05, "no click")
        }
    }

    @Test("A bus filter applies to every voice on the bus and to the music on the music bus")
    func busFilter() throws {
        let open = try toneLevel(4_000) { _, _ in }
        let onBus = try toneLevel(4_000) { _, engine in engine.effectsBus.filter = .lowPass(cutoff: 2_000) }
        let onMaster = try toneLevel(4_000) { _, engine in engine.masterBus.filter = .lowPass(cutoff: 2_000) }
        let elsewhere = try toneLevel(4_000) { _, engine in engine.musicBus.filter = .lowPass(cutoff: 2_000) }
        #expect(abs(db(onBus, open) + 7) < 1, "the voice's bus: \(db(onBus, open)) dB")
        #expect(abs(db(onMaster, open) + 7) < 1, "a parent bus: \(db(onMaster, open)) dB")
        #expect(abs(db(elsewhere, open)) < 0.05, "another bus leaves it alone")
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("tone.wav")
            try Songs.write(Songs.sineFrames(0..<96_000, frequency: 4_000), to: url)
            func musicLevel(_ filter: AudioFilter?) throws -> Float {
                try withOfflineEngine { engine in
                    let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: url)])
                    engine.musicBus.filter = filter
                    player.play()
                    _ = try engine.render(frames: 24_000)
                    return SampleAnalysis.rms(try engine.render(frames: 24_000))
                }
            }
            let plain = try musicLevel(nil)
            let muffled = try musicLevel(.lowPass(cutoff: 2_000))
            #expect(plain > 0.1)
            #expect(abs(db(muffled, plain) + 7) < 1, "music under a music-bus low-pass: \(db(muffled, plain)) dB")
        }
    }
}
