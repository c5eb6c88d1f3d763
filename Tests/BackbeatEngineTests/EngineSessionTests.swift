import Backbeat
import BackbeatTesting
import Foundation
import Testing

@Suite("AudioEngine.session")
struct EngineSessionTests {
    struct Case: CustomStringConvertible, Sendable {
        let category: AudioSession.Category
        let options: AudioSession.CategoryOptions
        let otherAudio: Bool
        let silentSwitch: Bool
        var description: String { "\(category) \(options) other:\(otherAudio) silent:\(silentSwitch)" }
    }

    static let cases: [Case] = {
        let combos: [(AudioSession.Category, AudioSession.CategoryOptions)] = [
            (.ambient, []), (.soloAmbient, []), (.playback, []), (.playback, .mixWithOthers), (.playback, .duckOthers),
        ]
        return combos.flatMap { c in
            [false, true].flatMap { other in
                [false, true].map { Case(category: c.0, options: c.1, otherAudio: other, silentSwitch: $0) }
            }
        }
    }()

    /// The contract in DESIGN.md: the silent switch mutes the game's own
    /// effects in ambient and soloAmbient only; other audio never silences effects.
    static func effectsAudible(_ c: Case) -> Bool { !(c.silentSwitch && c.category != .playback) }

    @Test("Effects audibility over the whole table, on rendered output", arguments: cases)
    func effectsTruthTable(_ c: Case) throws {
        try withOfflineEngine { engine in
            let session = engine.session
            try session.setCategory(c.category, options: c.options)
            session.setActive(true)
            if c.otherAudio { session.post(.otherAudioStarted(name: "radio")) }
            if c.silentSwitch { session.post(.silentSwitch(on: true)) }
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.5)), name: "hit", engine: engine)
            let voice = sound.play()
            let out = try engine.render(frames: 9_600)
            let audible = SampleAnalysis.rms(out.suffix(4_800)) > 0.05
            #expect(audible == Self.effectsAudible(c))
            // Muting never stops time: the voice went on.
            #expect(voice.currentTime.seconds > 0.19)
        }
    }

    @Test("Silent switch off continues the muted effect mid-sound")
    func silentSwitchContinues() throws {
        try withOfflineEngine { engine in
            try engine.session.setCategory(.ambient)
            engine.session.setActive(true)
            let ramp = try PCMBuffer(
                format: AudioFormat(sampleRate: 48_000, channelCount: 1),
                floats: (0..<48_000).map { Float($0) / 48_000 })
            let sound = try SoundEffect(buffer: ramp, name: "ramp", engine: engine)
            sound.play()
            _ = try engine.render(frames: 4_800)
            engine.session.post(.silentSwitch(on: true))
            #expect(SampleAnalysis.peak(try engine.render(frames: 9_600).suffix(2_000)) == 0)
            engine.session.post(.silentSwitch(on: false))
            let out = SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2)
            // 0.4 s in, the ramp reads 0.4 (times the centre pan gain): time went on while muted.
            #expect(abs(out.last! / 0.5957 - 0.4) < 0.005)
        }
    }

    @Test("An interruption pauses effects; its end resumes them where they were")
    func interruptionPausesEffects() throws {
        try withOfflineEngine { engine in
            engine.session.setActive(true)
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 300, duration: MediaTime(seconds: 1)), name: "s", engine: engine)
            let voice = sound.play()
            _ = try engine.render(frames: 9_600)
            engine.session.post(.interruptionBegan)
            _ = try engine.render(frames: 2_400)
            let held = voice.currentTime
            #expect(SampleAnalysis.peak(try engine.render(frames: 9_600)) == 0)
            #expect(voice.state == .paused)
            engine.session.post(.interruptionEnded(shouldResume: false))
            #expect(SampleAnalysis.rms(try engine.render(frames: 4_800)) > 0.05)
            #expect(voice.currentTime > held)
        }
    }

    @Test("Headphones unplugged: effects go on")
    func unplugKeepsEffects() throws {
        try withOfflineEngine { engine in
            engine.session.setActive(true)
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 300, duration: MediaTime(seconds: 1)), name: "s", engine: engine)
            sound.play()
            _ = try engine.render(frames: 2_400)
            engine.session.post(
                .routeChange(
                    reason: .oldDeviceUnavailable, previousRoute: AudioRoute(name: "headphones"),
                    currentRoute: AudioRoute(name: "speakers")))
            #expect(SampleAnalysis.rms(try engine.render(frames: 4_800)) > 0.05)
        }
    }

    @Test("session.duck(music:) lowers the music bus and restores it on engine time")
    func sessionDuck() throws {
        try withOfflineEngine { engine in
            let dc = try SoundEffect(buffer: TestSignal.constant(0.5, frames: 48_000), name: "bed", engine: engine)
            dc.play(looping: .forever, bus: engine.musicBus)
            _ = try engine.render(frames: 4_800)
            let full = SampleAnalysis.channel(try engine.render(frames: 240), 0, of: 2).last!
            _ = try engine.session.duck(
                music: MediaTime(seconds: 0.2), by: 12,
                attack: MediaTime(seconds: 0.05), release: MediaTime(seconds: 0.05))
            let down = SampleAnalysis.channel(try engine.render(frames: 7_200), 0, of: 2).last!
            #expect(abs(down / full - 0.2512) < 0.01)
            let back = SampleAnalysis.channel(try engine.render(frames: 14_400), 0, of: 2).last!
            #expect(abs(back - full) < 1e-4)
        }
    }
}
