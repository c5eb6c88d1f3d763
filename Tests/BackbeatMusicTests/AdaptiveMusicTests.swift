import Backbeat
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatMedia
@testable import BackbeatMusic

/// Adaptive music in engine time, to the sample: transitions on the beat, stingers, layers after a seek.
@Suite("AdaptiveMusic")
struct AdaptiveMusicTests {
    static let rate = 48_000
    /// 130 BPM in 4/4 at 48 kHz: a beat is 22,153.8 frames, so beats fall between the engine's update steps.
    static let tempo = try! TempoMap(beatsPerMinute: 130)
    /// Where beat `n` falls, from a section's start.
    static func beat(_ n: Int64) -> Int64 { tempo.frame(ofBeat: n, sampleRate: rate) }

    /// Renders `frames` more, appending to `out` (so `out[frame * 2]` is engine frame `frame`, left).
    static func render(_ engine: AudioEngine, _ frames: Int, into out: inout [Float]) throws {
        out += try engine.render(frames: frames)
    }

    static func constant(_ value: Float, seconds: Double, _ dir: URL, _ name: String) throws -> AudioAsset {
        AudioAsset(url: try Songs.constant(value, seconds: seconds, in: dir, name: name))
    }

    @Test("TempoMap: from tags (BPM, TIMESIGNATURE) or code; bad tempos and signatures are refused")
    func tempoMap() throws {
        var tags = AudioTags(beatsPerMinute: 90)
        tags.timeSignature = "3/4"
        let map = try #require(TempoMap(tags: tags))
        #expect(map.beatsPerMinute == 90 && map.beatsPerBar == 3 && map.beatUnit == 4)
        tags.timeSignature = "x/9"
        #expect(TempoMap(tags: tags)?.beatsPerBar == 4, "an unreadable signature is 4/4")
        #expect(TempoMap(tags: AudioTags()) == nil)
        #expect(throws: BackbeatError.self) { try TempoMap(beatsPerMinute: 0) }
        #expect(throws: BackbeatError.self) { try TempoMap(beatsPerMinute: .nan) }
        #expect(throws: BackbeatError.self) { try TempoMap(beatsPerMinute: 120, beatsPerBar: 0) }
        #expect(throws: BackbeatError.self) { try TempoMap(beatsPerMinute: 120, beatUnit: 3) }
        let t120 = try TempoMap(beatsPerMinute: 120)
        #expect(t120.nextFrame(atOrAfter: 1, every: 1, sampleRate: 48_000) == 24_000)
        #expect(t120.nextFrame(atOrAfter: 24_000, every: 1, sampleRate: 48_000) == 24_000)
        #expect(t120.nextFrame(atOrAfter: 24_001, every: 4, sampleRate: 48_000) == 96_000)
        #expect(Self.beat(1) == 22_154 && Self.beat(3) == 66_462)
        // 7 beats a bar at 133 BPM: beats fall on fractional frames, rounded.
        let odd = try TempoMap(beatsPerMinute: 133, beatsPerBar: 7, beatUnit: 8)
        #expect(odd.nextFrame(atOrAfter: 100_000, every: 1, sampleRate: 44_100) == 119_368, "beat 6 at 119,368.4")
    }

    @Test("A change of section starts on the beat frame, and on the bar line, exactly; the old one is cut there")
    func transitionOnTheBeat() throws {
        try withTemporaryDirectory { dir in
            let calm = try Self.constant(0.1, seconds: 8, dir, "calm.wav")
            let fight = try Self.constant(0.3, seconds: 8, dir, "fight.wav")
            try withOfflineEngine { engine in
                let music = try AdaptiveMusicPlayer(
                    engine: engine,
                    sections: [
                        MusicSection(name: "calm", asset: calm, tempo: Self.tempo),
                        MusicSection(name: "fight", asset: fight, tempo: Self.tempo),
                    ])
                var out: [Float] = []
                let start = try music.play(section: "calm").frames(atSampleRate: Self.rate)
                try Self.render(engine, 30_000, into: &out)
                #expect(music.currentSection == "calm")
                #expect(
                    abs(out[Int(start) * 2] - 0.1) < 1e-4 && abs(out[(Int(start) - 1) * 2]) < 1e-6,
                    "starts on its frame")
                let beat = try music.transition(to: "fight", quantization: .beat).frames(atSampleRate: Self.rate)
                #expect(beat == start + Self.beat(2), "the next beat after 30,000 frames is beat 2")
                #expect(beat % Int64(engine.updateInterval) != 0, "between update steps")
                try Self.render(engine, 60_000, into: &out)
                let b = Int(beat)
                #expect(abs(out[(b - 1) * 2] - 0.1) < 1e-4, "calm up to the frame before the beat")
                #expect(abs(out[b * 2] - 0.4) < 1e-3, "fight from the beat frame (calm still ramping out)")
                #expect(abs(out[(b + 1_000) * 2] - 0.3) < 1e-4, "then fight alone")
                #expect(music.currentSection == "fight")
                let bar = try music.transition(to: "calm", quantization: .bar).frames(atSampleRate: Self.rate)
                #expect(bar == beat + Self.beat(4), "fight's bars count from its own start")
                try Self.render(engine, 60_000, into: &out)
                #expect(abs(out[(Int(bar) - 1) * 2] - 0.3) < 1e-4 && abs(out[Int(bar) * 2] - 0.4) < 1e-3)
                #expect(abs(out[(Int(bar) + 1_000) * 2] - 0.1) < 1e-4)
            }
        }
    }

    @Test("A stinger lands on the beat; a transition segment plays first, then the section, each on its frame")
    func stingerAndTransitionSegment() throws {
        try withTemporaryDirectory { dir in
            let calm = try Self.constant(0.1, seconds: 8, dir, "calm.wav")
            let fight = try Self.constant(0.3, seconds: 8, dir, "fight.wav")
            let hit = try Self.constant(0.2, seconds: 0.1, dir, "hit.wav")
            let bridge = try Self.constant(0.05, seconds: 0.25, dir, "bridge.wav")
            try withOfflineEngine { engine in
                let music = try AdaptiveMusicPlayer(
                    engine: engine,
                    sections: [
                        MusicSection(name: "calm", asset: calm, tempo: Self.tempo),
                        MusicSection(name: "fight", asset: fight, tempo: Self.tempo),
                    ])
                var out: [Float] = []
                // Right after play(section:), before calm is heard: its first beat is its first frame.
                #expect(music.currentSection == nil && music.upcomingSection == nil)
                let start = Int(try music.play(section: "calm").frames(atSampleRate: Self.rate))
                #expect(music.currentSection == nil && music.upcomingSection == "calm")
                let first = Int(try music.playStinger(hit, quantization: .beat).frames(atSampleRate: Self.rate))
                #expect(first == start)
                try Self.render(engine, 10_000, into: &out)
                #expect(
                    abs(out[(start - 1) * 2]) < 1e-4 && abs(out[start * 2] - 0.3) < 1e-4, "calm and the stinger at once"
                )
                #expect(music.currentSection == "calm" && music.upcomingSection == nil)
                let hitAt = Int(try music.playStinger(hit, quantization: .beat).frames(atSampleRate: Self.rate))
                #expect(hitAt == start + Int(Self.beat(1)))
                #expect(music.nextBoundary(.bar).frames(atSampleRate: Self.rate) == Int64(start) + Self.beat(4))
                try Self.render(engine, 40_000, into: &out)
                #expect(
                    abs(out[(hitAt - 1) * 2] - 0.1) < 1e-4 && abs(out[hitAt * 2] - 0.3) < 1e-4,
                    "the stinger's first frame")
                #expect(
                    abs(out[(hitAt + 4_799) * 2] - 0.3) < 1e-4 && abs(out[(hitAt + 4_800) * 2] - 0.1) < 1e-4, "0.1 s")
                let at = Int(
                    try music.transition(to: "fight", quantization: .beat, via: bridge).frames(atSampleRate: Self.rate))
                #expect(at == start + Int(Self.beat(3)))
                try Self.render(engine, 60_000, into: &out)
                #expect(abs(out[(at + 1_000) * 2] - 0.05) < 1e-4, "the bridge alone after the cut")
                #expect(abs(out[(at + 11_999) * 2] - 0.05) < 1e-4 && abs(out[(at + 12_000) * 2] - 0.3) < 1e-4)
            }
        }
    }

    @Test("Crossfade: equal power from the boundary; segment end: the end of the loop's pass")
    func crossfadeAndSegmentEnd() throws {
        try withTemporaryDirectory { dir in
            let url = try Songs.constant(0.2, seconds: 4, in: dir, name: "loop.wav")
            let looped = AudioAsset(url: url, loopPoints: try LoopPoints(start: 12_001, end: 60_002))
            let other = try Self.constant(0.2, seconds: 8, dir, "other.wav")
            try withOfflineEngine { engine in
                let music = try AdaptiveMusicPlayer(
                    engine: engine,
                    sections: [
                        MusicSection(name: "a", asset: looped, tempo: Self.tempo),
                        MusicSection(name: "b", asset: other),
                    ])
                var out: [Float] = []
                let start = Int(try music.play(section: "a").frames(atSampleRate: Self.rate))
                try Self.render(engine, 70_000, into: &out)
                let end = Int(
                    try music.transition(
                        to: "b", quantization: .segmentEnd, style: .crossfade(MediaTime(seconds: 0.5))
                    ).frames(atSampleRate: Self.rate))
                #expect(end == start + 12_001 + 2 * 48_001, "the second pass of the loop ends there")
                try Self.render(engine, 80_000, into: &out)
                // Equal power: at the midpoint each is cos(π/4) ≈ 0.707 of 0.2.
                let mid = out[(end + 12_000) * 2]
                #expect(abs(mid - 2 * 0.2 * 0.7071) < 0.01, "\(mid)")
                #expect(abs(out[(end + 30_000) * 2] - 0.2) < 1e-3, "b alone after the fade")
            }
        }
    }

    @Test("Layers stay sample-aligned after a seek (cross-correlation peak at lag 0) and fade by their gains")
    func layersAfterSeek() throws {
        try withTemporaryDirectory { dir in
            // The same noise: the bass stem in the left channel, the drums stem in the right.
            var seed: UInt64 = 7
            let noise = (0..<96_000).map { _ -> Float in
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Float(Int64(bitPattern: seed >> 11) % 1_000) / 4_000
            }
            var left = [Float](repeating: 0, count: 96_000 * 2)
            var right = left
            for i in 0..<96_000 {
                left[2 * i] = noise[i]
                right[2 * i + 1] = noise[i]
            }
            let bass = dir.appendingPathComponent("bass.wav")
            let drums = dir.appendingPathComponent("drums.wav")
            try Songs.write(left, to: bass)
            try Songs.write(right, to: drums)
            try withOfflineEngine { engine in
                let music = try AdaptiveMusicPlayer(
                    engine: engine,
                    sections: [
                        MusicSection(
                            name: "level",
                            stems: [
                                MusicStem(layer: "bass", asset: AudioAsset(url: bass)),
                                MusicStem(layer: "drums", asset: AudioAsset(url: drums)),
                            ], tempo: Self.tempo)
                    ])
                var out: [Float] = []
                try music.play(section: "level")
                try Self.render(engine, 12_345, into: &out)
                music.seek(to: MediaTime(frames: 40_000, sampleRate: Self.rate))
                let from = Int(music.nextBoundary(.immediate).frames(atSampleRate: Self.rate))
                try Self.render(engine, 30_000, into: &out)
                let l = SampleAnalysis.channel(Array(out[((from + 2_000) * 2)..<((from + 10_192) * 2)]), 0, of: 2)
                let r = SampleAnalysis.channel(Array(out[((from + 2_000) * 2)..<((from + 10_192) * 2)]), 1, of: 2)
                #expect(SampleAnalysis.crossCorrelationLag(l, r, maximumLag: 1_000) == 0, "the stems are sample-locked")
                #expect(SampleAnalysis.rms(l) > 0.05)
                // Both at the seek position: output frame `from` is stem frame 40,000.
                var worst: Float = 0
                for k in 0..<8_192 { worst = max(worst, abs(l[k] - noise[42_000 + k]), abs(r[k] - noise[42_000 + k])) }
                #expect(worst < 1e-4, "the stems continue from the seek position, \(worst)")
                music.setLayerGain("drums", to: 0)
                try Self.render(engine, 5_000, into: &out)
                let tail = Array(out[(out.count - 4_000)...])
                #expect(SampleAnalysis.peak(SampleAnalysis.channel(tail, 1, of: 2)) < 1e-4, "drums faded out")
                #expect(SampleAnalysis.rms(SampleAnalysis.channel(tail, 0, of: 2)) > 0.05, "bass plays on")
                #expect(music.layerGain("drums") == 0 && music.layerGain("bass") == 1)
            }
        }
    }

    /// Deterministic noise, `frames` long, as a stereo file in `dir`.
    static func noise(_ frames: Int, _ dir: URL, _ name: String) throws -> (AudioAsset, [Float]) {
        var seed: UInt64 = 11
        let noise = (0..<frames).map { _ -> Float in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int64(bitPattern: seed >> 11) % 1_000) / 4_000
        }
        let url = dir.appendingPathComponent(name)
        try Songs.write(noise.flatMap { [$0, $0] }, to: url)
        return (AudioAsset(url: url), noise)
    }

    @Test("pause() stops the section's time and resume() goes on from the frame where it paused; the beats follow")
    func pauseAndResume() throws {
        try withTemporaryDirectory { dir in
            let (asset, noise) = try Self.noise(96_000, dir, "level.wav")
            try withOfflineEngine { engine in
                let music = try AdaptiveMusicPlayer(
                    engine: engine, sections: [MusicSection(name: "level", asset: asset, tempo: Self.tempo)])
                let interval = engine.updateInterval
                var out: [Float] = []
                let start = Int(try music.play(section: "level").frames(atSampleRate: Self.rate))
                try Self.render(engine, 20_000, into: &out)
                let paused = Int(music.nextBoundary(.immediate).frames(atSampleRate: Self.rate))
                music.pause()
                #expect(music.isPaused && music.currentSection == nil)
                music.pause()  // twice: still where it was
                try Self.render(engine, 15_000, into: &out)
                #expect(SampleAnalysis.peak(Array(out[((paused + 2 * interval) * 2)...])) == 0, "paused: silent")
                let resumed = Int(music.nextBoundary(.immediate).frames(atSampleRate: Self.rate))
                music.resume()
                #expect(!music.isPaused && music.currentSection == "level")
                try Self.render(engine, 20_000, into: &out)
                // Output frame `resumed` is the frame heard at `paused`; after the ramp-in, sample for sample.
                var worst: Float = 0
                for k in interval..<(interval + 10_000) {
                    worst = max(worst, abs(out[(resumed + k) * 2] - noise[paused - start + k]))
                }
                #expect(worst < 1e-4, "resumed where it paused: \(worst)")
                // The beats moved with it: the next beat is a whole number of beats from the shifted start.
                let shifted = resumed - (paused - start)
                let beat = Int(music.nextBoundary(.beat).frames(atSampleRate: Self.rate)) - shifted
                #expect((1...4).contains { Int(Self.beat(Int64($0))) == beat }, "beat at \(beat) from the start")
                // No click at either end: nothing jumps more than the noise itself does.
                #expect(
                    SampleAnalysis.maxJump(out, channels: 2)
                        <= SampleAnalysis.maxJump(noise.flatMap { [$0, $0] }, channels: 2) + 1e-3)
                // resume() without a pause, and a play after a pause, start afresh.
                music.resume()
                music.pause()
                try music.play(section: "level")
                #expect(!music.isPaused)
            }
        }
    }

    @Test("The session: an interruption pauses the music and its end resumes it; the silent switch mutes it in ambient")
    func sessionPausesAndMutes() throws {
        try withTemporaryDirectory { dir in
            let (asset, noise) = try Self.noise(96_000, dir, "level.wav")
            try withOfflineEngine { engine in
                let music = try AdaptiveMusicPlayer(
                    engine: engine, sections: [MusicSection(name: "level", asset: asset)])
                let interval = engine.updateInterval
                var out: [Float] = []
                let start = Int(try music.play(section: "level").frames(atSampleRate: Self.rate))
                try Self.render(engine, 10_000, into: &out)
                let paused = Int(music.nextBoundary(.immediate).frames(atSampleRate: Self.rate))
                engine.session.post(.interruptionBegan)
                try Self.render(engine, 10_000, into: &out)
                #expect(music.isPaused && SampleAnalysis.peak(Array(out[((paused + 2 * interval) * 2)...])) == 0)
                let resumed = Int(music.nextBoundary(.immediate).frames(atSampleRate: Self.rate))
                engine.session.post(.interruptionEnded(shouldResume: true))
                try Self.render(engine, 10_000, into: &out)
                #expect(!music.isPaused)
                var worst: Float = 0
                for k in interval..<(interval + 5_000) {
                    worst = max(worst, abs(out[(resumed + k) * 2] - noise[paused - start + k]))
                }
                #expect(worst < 1e-4, "resumed where the call paused it: \(worst)")
                // Ambient with the silent switch on: muted, its time running; off again: heard.
                try engine.session.setCategory(.ambient)
                engine.session.post(.silentSwitch(on: true))
                let muted = try engine.render(frames: 5_000)
                #expect(SampleAnalysis.peak(Array(muted[(2 * interval * 2)...])) == 0 && !music.isPaused)
                engine.session.post(.silentSwitch(on: false))
                let heard = try engine.render(frames: 5_000)
                #expect(SampleAnalysis.rms(Array(heard[(2 * interval * 2)...])) > 0.05)
            }
        }
    }

    @Test("Bad input: unknown section, no sections, a section without stems, a missing stem, duplicate names")
    func badInput() throws {
        try withTemporaryDirectory { dir in
            let calm = try Self.constant(0.1, seconds: 1, dir, "calm.wav")
            try withOfflineEngine { engine in
                #expect(throws: BackbeatError.self) { try AdaptiveMusicPlayer(engine: engine, sections: []) }
                #expect(throws: BackbeatError.self) {
                    try AdaptiveMusicPlayer(engine: engine, sections: [MusicSection(name: "x", stems: [])])
                }
                #expect {
                    try AdaptiveMusicPlayer(
                        engine: engine,
                        sections: [
                            MusicSection(name: "x", asset: AudioAsset(url: dir.appendingPathComponent("missing.ogg")))
                        ])
                } throws: { BackbeatError.Code.fileNotFound.matches($0) }
                #expect(throws: BackbeatError.self) {
                    try AdaptiveMusicPlayer(
                        engine: engine,
                        sections: [MusicSection(name: "x", asset: calm), MusicSection(name: "x", asset: calm)])
                }
                let music = try AdaptiveMusicPlayer(engine: engine, sections: [MusicSection(name: "calm", asset: calm)])
                #expect { try music.transition(to: "nope") } throws: { BackbeatError.Code.invalidArgument.matches($0) }
                // Without a tempo, beat and bar quantization start as soon as possible.
                try music.play(section: "calm")
                _ = try engine.render(frames: 1_000)
                #expect(music.nextBoundary(.bar) == music.nextBoundary(.immediate))
            }
        }
    }
}

/// What the adaptive player gains from the player core: events, meters, fades, the shutdown fade.
extension AdaptiveMusicTests {
    @Test("It posts the player events: its state, the section heard and its volume, each once, in order")
    func postsEvents() throws {
        try withTemporaryDirectory { dir in
            let calm = try Self.constant(0.25, seconds: 4, dir, "calm.wav")
            let fight = try Self.constant(0.5, seconds: 4, dir, "fight.wav")
            try withOfflineEngine { engine in
                let music = try AdaptiveMusicPlayer(
                    engine: engine,
                    sections: [MusicSection(name: "calm", asset: calm), MusicSection(name: "fight", asset: fight)])
                let recorder = PlayerEventRecorder(music)
                #expect(music.playbackState == .stopped)
                try music.play(section: "calm")
                #expect(recorder.events == [.playbackStateDidChange(.playing)] && music.playbackState == .playing)
                var out = try engine.render(frames: 4_800)
                #expect(recorder.events.last == .sectionDidChange("calm") && abs(out[out.count - 1] - 0.25) < 1e-4)
                music.volume = 0.5
                music.volume = 0.5  // unchanged: no event
                out = try engine.render(frames: 4_800)
                #expect(abs(out[out.count - 1] - 0.125) < 1e-4, "after the volume: \(out[out.count - 1])")
                music.pause()
                #expect(music.playbackState == .paused)
                _ = try engine.render(frames: 4_800)
                music.resume()
                _ = try engine.render(frames: 4_800)
                engine.session.post(.interruptionBegan)
                _ = try engine.render(frames: 4_800)
                #expect(music.playbackState == .interrupted)
                engine.session.post(.interruptionEnded(shouldResume: true))
                _ = try engine.render(frames: 4_800)
                try music.transition(to: "fight", quantization: .immediate)
                out = try engine.render(frames: 4_800)
                #expect(abs(out[out.count - 1] - 0.25) < 1e-4, "fight at half volume: \(out[out.count - 1])")
                music.stop()
                #expect(music.playbackState == .stopped)
                #expect(
                    recorder.events == [
                        .playbackStateDidChange(.playing), .sectionDidChange("calm"),
                        .volumeDidChange(0.5),
                        .playbackStateDidChange(.paused), .sectionDidChange(nil),
                        .playbackStateDidChange(.playing), .sectionDidChange("calm"),
                        .playbackStateDidChange(.interrupted), .sectionDidChange(nil),
                        .playbackStateDidChange(.playing), .sectionDidChange("calm"),
                        .sectionDidChange("fight"),
                        .playbackStateDidChange(.stopped), .sectionDidChange(nil),
                    ])
            }
        }
    }

    @Test("Meters read after the volume, stems and stingers heard together; fade(to:) reaches silence on time")
    func metersAndFades() throws {
        try withTemporaryDirectory { dir in
            let level = try Self.constant(0.5, seconds: 4, dir, "level.wav")
            let hit = try Self.constant(0.25, seconds: 2, dir, "hit.wav")
            try withOfflineEngine { engine in
                let music = try AdaptiveMusicPlayer(
                    engine: engine, sections: [MusicSection(name: "level", asset: level)])
                let recorder = PlayerEventRecorder(music)
                music.isMeteringEnabled = true
                #expect(music.isMeteringEnabled)
                try music.play(section: "level")
                _ = try engine.render(frames: 9_600)
                music.updateMeters()
                _ = try engine.render(frames: 9_600)
                music.updateMeters()
                #expect(abs(music.averagePower(forChannel: 0) - 20 * log10(0.5)) < 0.1)
                #expect(abs(music.peakPower(forChannel: 1) - 20 * log10(0.5)) < 0.1)
                #expect(music.averagePower(forChannel: 7) == -160 && music.peakPower(forChannel: 7) == -160)
                music.volume = 0.5
                _ = try engine.render(frames: 9_600)
                music.updateMeters()
                #expect(abs(music.averagePower(forChannel: 0) - 20 * log10(0.25)) < 0.1)
                // A stinger over the section: the rendered mix is their sum; the meters add their powers and peaks.
                try music.playStinger(hit, quantization: .immediate)
                _ = try engine.render(frames: 9_600)
                music.updateMeters()
                let both = try engine.render(frames: 9_600)
                music.updateMeters()
                #expect(abs(both[both.count - 1] - 0.375) < 1e-4, "section and stinger at half volume: \(both.last!)")
                let power = Float(0.25 * 0.25 + 0.125 * 0.125).squareRoot()
                #expect(abs(music.averagePower(forChannel: 0) - 20 * log10(power)) < 0.1)
                #expect(abs(music.peakPower(forChannel: 0) - 20 * log10(0.375)) < 0.1)
                #expect(music.underrunCount == 0)
                // A fade to silence over 0.1 s: falling half way, silent once done.
                music.fade(to: 0, duration: MediaTime(seconds: 0.1))
                #expect(music.volume == 0)
                let fading = try engine.render(frames: 9_600)
                let middle = fading[2_400 * 2]
                #expect(middle > 0.01 && middle < 0.37, "half way through the fade: \(middle)")
                #expect(SampleAnalysis.peak(Array(fading[(7_200 * 2)...])) < 1e-4, "silent after the fade")
                _ = try engine.render(frames: 4_800)
                music.updateMeters()
                #expect(music.averagePower(forChannel: 0) == -160)
                music.isMeteringEnabled = false
                #expect(!music.isMeteringEnabled && music.peakPower(forChannel: 0) == -160)
                #expect(
                    recorder.events.filter { if case .volumeDidChange = $0 { true } else { false } } == [
                        .volumeDidChange(0.5), .volumeDidChange(0),
                    ])
            }
        }
    }

    @Test("The engine's shutdown fades it out as it does the other players, and ends its event streams")
    func shutdownFade() async throws {
        try await withTemporaryDirectoryAsync { dir in
            let song = dir.appendingPathComponent("sine.wav")
            // 500 Hz: five cycles per 480-frame block, so a block's RMS is the envelope.
            try Songs.write(Songs.sineFrames(0..<(5 * 48_000), frequency: 500), to: song)
            let url = dir.appendingPathComponent("out.wav")
            let engine = try AudioEngine(output: .file(url: url, sampleRate: 48_000))
            let music = try AdaptiveMusicPlayer(
                engine: engine, sections: [MusicSection(name: "level", asset: AudioAsset(url: song))])
            let events = music.events()
            try music.play(section: "level")
            try engine.advance(by: MediaTime(seconds: 1))
            engine.shutdown()
            var posted: [AdaptiveMusicPlayer.Event] = []
            for await event in events { posted.append(event) }
            #expect(posted == [.playbackStateDidChange(.playing), .sectionDidChange("level")])
            let decoder = try AudioDecoders.open(url)
            var samples: [Float] = []
            _ = try decoder.read(frames: Int(decoder.frameCount), into: &samples)
            #expect(decoder.frameCount >= 96_000 && decoder.frameCount <= 96_000 + 960)
            let tail = Array(samples[(48_000 * 2)...])
            let rms = stride(from: 0, to: tail.count / 2 - 480 + 1, by: 480).map { start in
                SampleAnalysis.rms(SampleAnalysis.channel(Array(tail[(start * 2)..<((start + 480) * 2)]), 0, of: 2))
            }
            #expect(rms.count >= 100)
            #expect(abs(rms[0] - Float(0.5 / 2.0.squareRoot())) < 0.02, "full level when the fade starts")
            for i in 1..<rms.count { #expect(rms[i] <= rms[i - 1] + 1e-4, "block \(i) of \(rms.count) rises") }
            #expect(rms[99] < 0.02, "nearly silent by the end of the fade")
            #expect(SampleAnalysis.peak(tail[((48_000 + 48) * 2)...]) < 1e-4, "silent after it")
            #expect(SampleAnalysis.maxJump(tail, channels: 2) < 0.04, "no cut")
        }
    }
}
