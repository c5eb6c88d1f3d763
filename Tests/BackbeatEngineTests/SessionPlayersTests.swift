import Backbeat
import BackbeatLibrary
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatEngine

/// The session contract checked on rendered output with all three kinds of
/// sound at once: a queue player (the game's own music, DC 0.1), the
/// application music player (DC 0.2) and a 480 Hz effect. The rendered
/// left channel's mean says which music sounds; what is left says whether
/// the effect does.
@Suite("Session over players and effects")
struct SessionPlayersTests {
    struct Heard: Equatable, CustomStringConvertible {
        var queue: Bool
        var music: Bool
        var effect: Bool
        var description: String { "queue:\(queue) music:\(music) effect:\(effect)" }
    }

    /// Plays the three sounds, applies `setup`, renders, and says what is heard.
    private func scene(
        _ setup: (AudioEngine, QueuePlayer, MusicPlayer, Voice) throws -> Void,
        then body: ((AudioEngine, QueuePlayer, MusicPlayer, Voice) throws -> Void)? = nil
    ) throws -> Heard {
        var heard = Heard(queue: false, music: false, effect: false)
        try withDCLibrary(count: 2, seconds: 4) { _, items in
            try withOfflineEngine { engine in
                let queue = try QueuePlayer(engine: engine, items: [PlayerItem(url: items[0].assetURL)])
                let music = try MusicPlayer.application(for: engine)
                music.setQueue(items: [items[1]])
                let tone = try SoundEffect(
                    buffer: TestSignal.sine(frequency: 480, duration: MediaTime(seconds: 1), amplitude: 0.5),
                    name: "tone", engine: engine)
                queue.play()
                music.play()
                let voice = tone.play(looping: .forever)
                _ = try engine.render(frames: 2_400)
                try setup(engine, queue, music, voice)
                _ = try engine.render(frames: 4_800)
                heard = try Self.listen(engine)
                try body?(engine, queue, music, voice)
            }
        }
        return heard
    }

    /// 100 ms: 48 whole cycles of 480 Hz, so the tone averages to zero.
    static func listen(_ engine: AudioEngine) throws -> Heard {
        let left = SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2)
        let mean = left.reduce(0, +) / Float(left.count)
        let tone = SampleAnalysis.rms(left.map { $0 - mean })
        let level = (mean * 10).rounded()  // 0, 1, 2 or 3 tenths
        return Heard(queue: level == 1 || level == 3, music: level == 2 || level == 3, effect: tone > 0.05)
    }

    typealias Case = EngineSessionTests.Case

    /// DESIGN.md's table: the silent switch mutes the game's own sounds
    /// (effects and the queue player) in ambient and soloAmbient; an ambient
    /// soundtrack and MusicPlayer are held back while other audio plays;
    /// MusicPlayer plays regardless of the silent switch (its only exception).
    static func expected(_ c: Case) -> Heard {
        let silenced = c.silentSwitch && c.category != .playback
        let heldBack = c.category == .ambient && c.otherAudio
        return Heard(queue: !silenced && !heldBack, music: !heldBack, effect: !silenced)
    }

    @Test("The whole truth table, on rendered output", arguments: EngineSessionTests.cases)
    func truthTable(_ c: Case) throws {
        let heard = try scene { engine, _, _, _ in
            try engine.session.setCategory(c.category, options: c.options)
            engine.session.setActive(true)
            if c.otherAudio { engine.session.post(.otherAudioStarted(name: "radio")) }
            if c.silentSwitch { engine.session.post(.silentSwitch(on: true)) }
        }
        #expect(heard == Self.expected(c))
    }

    @Test("Other audio stopping brings the ambient soundtrack and the music player back at once, where they were")
    func reEvaluated() throws {
        _ = try scene { engine, _, _, _ in
            try engine.session.setCategory(.ambient)
            engine.session.setActive(true)
            engine.session.post(.otherAudioStarted(name: "radio"))
        } then: { engine, _, music, _ in
            try #expect(Self.listen(engine) == Heard(queue: false, music: false, effect: true) as Heard)
            #expect(music.playbackState == .playing, "held back, not paused")
            let heldAt = music.currentPlaybackTime.seconds
            _ = try engine.render(frames: 4_800)
            #expect(abs(music.currentPlaybackTime.seconds - heldAt - 0.1) < 0.01, "time runs while held back")
            engine.session.post(.otherAudioStopped(name: "radio"))
            _ = try engine.render(frames: 2_400)
            try #expect(Self.listen(engine) == Heard(queue: true, music: true, effect: true) as Heard)
        }
    }

    @Test("A music player made while other audio plays in an ambient session starts held back")
    func madeWhileHeldBack() throws {
        try withDCLibrary(count: 2, seconds: 2) { _, items in
            try withOfflineEngine { engine in
                try engine.session.setCategory(.ambient)
                engine.session.setActive(true)
                engine.session.post(.otherAudioStarted(name: "radio"))
                let music = try MusicPlayer.application(for: engine)
                music.setQueue(items: [items[1]])  // DC 0.2, as `listen` expects of the music player
                music.play()
                _ = try engine.render(frames: 2_400)
                try #expect(Self.listen(engine) == Heard(queue: false, music: false, effect: false) as Heard)
                engine.session.post(.otherAudioStopped(name: "radio"))
                _ = try engine.render(frames: 2_400)
                try #expect(Self.listen(engine) == Heard(queue: false, music: true, effect: false) as Heard)
            }
        }
    }

    @Test("A queue player made while the silent switch is on in an ambient session starts muted")
    func queueMadeWhileSilent() throws {
        try withDCLibrary(count: 1, seconds: 2) { _, items in
            try withOfflineEngine { engine in
                try engine.session.setCategory(.ambient)
                engine.session.post(.silentSwitch(on: true))
                let queue = try QueuePlayer(engine: engine, items: [PlayerItem(url: items[0].assetURL)])
                queue.play()
                _ = try engine.render(frames: 2_400)
                try #expect(Self.listen(engine) == Heard(queue: false, music: false, effect: false) as Heard)
                engine.session.post(.silentSwitch(on: false))
                _ = try engine.render(frames: 2_400)
                try #expect(Self.listen(engine) == Heard(queue: true, music: false, effect: false) as Heard)
            }
        }
    }

    @Test(
        "The silent switch alone never holds the music player back",
        arguments: [AudioSession.Category.ambient, .soloAmbient])
    func silentSwitchIsTheException(category: AudioSession.Category) throws {
        let heard = try scene { engine, _, _, _ in
            try engine.session.setCategory(category)
            engine.session.setActive(true)
            engine.session.post(.silentSwitch(on: true))
        }
        #expect(heard == Heard(queue: false, music: true, effect: false))
    }

    @Test("Interruption: players go to interrupted, effects pause; ended with shouldResume resumes where they were")
    func interruptionResumes() throws {
        _ = try scene { engine, _, _, _ in
            engine.session.setActive(true)
            engine.session.post(.interruptionBegan)
        } then: { engine, queue, music, voice in
            try #expect(Self.listen(engine) == Heard(queue: false, music: false, effect: false) as Heard)
            #expect(queue.timeControlStatus == .interrupted)
            #expect(music.playbackState == .interrupted)
            #expect(voice.state == .paused)
            let queueAt = queue.currentPlaybackTime
            let musicAt = music.currentPlaybackTime.seconds
            _ = try engine.render(frames: 9_600)
            #expect(queue.currentPlaybackTime == queueAt)
            engine.session.post(.interruptionEnded(shouldResume: true))
            _ = try engine.render(frames: 2_400)
            try #expect(Self.listen(engine) == Heard(queue: true, music: true, effect: true) as Heard)
            #expect(queue.timeControlStatus == .playing)
            #expect(music.playbackState == .playing)
            #expect(abs(queue.currentPlaybackTime.seconds - queueAt.seconds - 0.15) < 0.02)
            #expect(abs(music.currentPlaybackTime.seconds - musicAt - 0.15) < 0.02)
        }
    }

    @Test("Interruption ended without shouldResume: the players stay paused, effects come back")
    func interruptionWithoutResume() throws {
        _ = try scene { engine, _, _, _ in
            engine.session.setActive(true)
            engine.session.post(.interruptionBegan)
            engine.session.post(.interruptionEnded(shouldResume: false))
        } then: { engine, queue, music, _ in
            try #expect(Self.listen(engine) == Heard(queue: false, music: false, effect: true) as Heard)
            #expect(queue.timeControlStatus == .paused)
            #expect(music.playbackState == .paused)
        }
    }

    @Test("A began with no ended does not wedge the engine: the next play recovers")
    func beganWithoutEnded() throws {
        _ = try scene { engine, _, _, _ in
            engine.session.setActive(true)
            engine.session.post(.interruptionBegan)
        } then: { engine, _, music, _ in
            music.play()
            _ = try engine.render(frames: 2_400)
            let heard = try Self.listen(engine)
            #expect(heard.music && heard.effect)
            #expect(music.playbackState == .playing)
            #expect(!engine.session.environment.isInterrupted)
        }
    }

    @Test("Headphones unplugged: music pauses, effects go on; a new device pauses nothing")
    func routeChanges() throws {
        _ = try scene { engine, _, _, _ in
            engine.session.setActive(true)
            engine.session.post(
                .routeChange(
                    reason: .newDeviceAvailable, previousRoute: AudioRoute(name: "speakers"),
                    currentRoute: AudioRoute(name: "headphones")))
        } then: { engine, queue, music, _ in
            try #expect(Self.listen(engine) == Heard(queue: true, music: true, effect: true) as Heard)
            engine.session.post(
                .routeChange(
                    reason: .oldDeviceUnavailable, previousRoute: AudioRoute(name: "headphones"),
                    currentRoute: AudioRoute(name: "speakers")))
            _ = try engine.render(frames: 2_400)
            try #expect(Self.listen(engine) == Heard(queue: false, music: false, effect: true) as Heard)
            #expect(queue.timeControlStatus == .paused)
            #expect(music.playbackState == .paused)
        }
    }

    @Test("Device loss: a voice and a stream continue from where they were on the replacement")
    func deviceLossKeepsStream() throws {
        try withDCLibrary(count: 1, seconds: 6) { _, items in
            try withOfflineEngine { engine in
                let queue = try QueuePlayer(engine: engine, items: [PlayerItem(url: items[0].assetURL)])
                queue.play()
                _ = try engine.render(frames: 48_000)
                let at = queue.currentPlaybackTime
                engine.simulateDeviceLoss()
                // The session paused the music (old device unavailable); the game plays it again.
                queue.play()
                _ = try engine.render(frames: 2_400)
                let left = SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2)
                #expect(abs(left.last! - 0.1) < 1e-3)
                #expect(abs(queue.currentPlaybackTime.seconds - at.seconds - 0.15) < 0.02)
            }
        }
    }

    @Test(
        "Device lost again while the session keeps the music paused: it plays on from where it was, not from the start")
    func deviceLostTwiceWhilePaused() throws {
        try withDCLibrary(count: 1, seconds: 6) { _, items in
            try withOfflineEngine { engine in
                let queue = try QueuePlayer(engine: engine, items: [PlayerItem(url: items[0].assetURL)])
                queue.play()
                _ = try engine.render(frames: 48_000)
                let at = queue.currentPlaybackTime
                engine.simulateDeviceLoss()
                _ = try engine.render(frames: 2_400)
                // Nothing of the stream was heard on the first replacement: it stayed paused.
                engine.simulateDeviceLoss()
                #expect(abs(queue.currentPlaybackTime.seconds - at.seconds) < 0.02)
                queue.play()
                _ = try engine.render(frames: 4_800)
                #expect(abs(queue.currentPlaybackTime.seconds - at.seconds - 0.1) < 0.02)
                let left = SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2)
                #expect(abs(left.last! - 0.1) < 1e-3)
            }
        }
    }
}
