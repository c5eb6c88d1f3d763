import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@Suite("SoundEffect and Voice")
struct SoundEffectTests {
    @Test("A one-shot is audible within one update of play(), silent after its length, and completes once")
    func oneShot() throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.25)), name: "sine",
                engine: engine)
            let tally = Tally()
            _ = try engine.render(frames: 1_000)  // start mid-stream, off an update boundary
            let voice = sound.play { tally.record($0) }
            let out = try engine.render(frames: 24_000)
            let first = try #require(SampleAnalysis.firstAudibleFrame(out, channels: 2))
            #expect(first < engine.updateInterval)
            // Sample 0 of a sine is 0: the first audible frame is the second.
            #expect(Int64(first) == engine.latencyFrames + 1, "heard after the limiter's lookahead only")
            let last = try #require(SampleAnalysis.lastAudibleFrame(out, channels: 2))
            #expect(abs(last - first - 12_000) <= 2)
            #expect(voice.isFinished)
            #expect(tally.all == [true])
            _ = try engine.render(frames: 4_800)
            #expect(tally.all == [true])
        }
    }

    @Test("Loop counts: n repeats n more times", arguments: [0, 1, 3])
    func loopCounts(loops: Int) throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(buffer: TestSignal.constant(0.5, frames: 4_800), name: "dc", engine: engine)
            let voice = sound.play(looping: .times(loops + 1))
            let out = try engine.render(frames: 4_800 * (loops + 3))
            let first = try #require(SampleAnalysis.firstAudibleFrame(out, channels: 2))
            let last = try #require(SampleAnalysis.lastAudibleFrame(out, channels: 2))
            #expect(last - first + 1 == 4_800 * (loops + 1))
            // Continuous through the seams: no gap between the copies.
            let left = SampleAnalysis.channel(out, 0, of: 2)
            #expect(left[(first + 1)..<last].allSatisfy { $0 > 0.25 })
            #expect(voice.isFinished)
        }
    }

    @Test("looping: .forever loops until stopped, then fades out without a click")
    func infiniteLoop() throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 500, duration: MediaTime(seconds: 0.01 * 9.6)), name: "loop",
                engine: engine)
            let voice = sound.play(looping: .forever)
            let before = try engine.render(frames: 48_000)
            #expect(SampleAnalysis.rms(SampleAnalysis.channel(before, 0, of: 2)[40_000...]) > 0.1)
            #expect(voice.state == .playing)
            voice.stop()
            let after = try engine.render(frames: 4_800)
            #expect(voice.isFinished)
            let tail = Array(after[(2_400 * 2)...])
            #expect(SampleAnalysis.peak(tail) == 0)
            // A 500 Hz sine at 0.298 moves at most 0.0195 per sample; a dead stop would jump 0.3.
            #expect(SampleAnalysis.maxJump(before.suffix(200) + after, channels: 2) < 0.03)
        }
    }

    @Test(
        "An endless loop goes round its queue by itself: seamless and in place for many rounds, at any rate",
        arguments: [Float(1), 2])
    func endlessLoopInPlace(rate: Float) throws {
        try withOfflineEngine { engine in
            // 24 whole periods of 500 Hz in 2,304 frames: every seam is continuous.
            let frames = 2_304
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 500, duration: MediaTime(frames: Int64(frames), sampleRate: 48_000)),
                name: "loop", engine: engine)
            let voice = sound.play(rate: rate, looping: .forever)
            _ = try engine.render(frames: 4_800)
            let start = Int(voice.currentTime.frames(atSampleRate: 48_000))
            // About 80 rounds at rate 1, 160 at rate 2, in one render.
            let rendered = 80 * frames + 1_000
            let out = try engine.render(frames: rendered)
            let end = Int(voice.currentTime.frames(atSampleRate: 48_000))
            let expected = (start + Int(Float(rendered) * rate)) % frames
            let drift = min(abs(end - expected), frames - abs(end - expected))
            #expect(drift <= 1, "position \(end), expected \(expected)")
            // No gap and no click at any seam: the sine's largest step at this
            // level is about 0.02 (0.04 at rate 2); a gap or restart jumps far more.
            #expect(SampleAnalysis.maxJump(out, channels: 2) < 0.05 * rate)
            let left = SampleAnalysis.channel(out, 0, of: 2)
            #expect(
                stride(from: 0, to: left.count - 480, by: 480).allSatisfy {
                    SampleAnalysis.rms(Array(left[$0..<($0 + 480)])) > 0.1
                })
            #expect(voice.state == .playing)
        }
    }

    @Test("Pan right puts the energy in the right channel", arguments: [1, 2])
    func panRight(channels: Int) throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.2), channels: channels),
                name: "pan", engine: engine)
            sound.play(pan: 1)
            let out = try engine.render(frames: 10_000)
            let left = SampleAnalysis.rms(SampleAnalysis.channel(out, 0, of: 2))
            let right = SampleAnalysis.rms(SampleAnalysis.channel(out, 1, of: 2))
            #expect(right > 0.1)
            #expect(left < right * 0.05)
            sound.play(pan: -1)
            let mirrored = try engine.render(frames: 10_000)
            #expect(
                SampleAnalysis.rms(SampleAnalysis.channel(mirrored, 0, of: 2)) > SampleAnalysis.rms(
                    SampleAnalysis.channel(mirrored, 1, of: 2)) * 20)
        }
    }

    @Test("play(at:) starts on its exact frame")
    func scheduledStart() throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(buffer: TestSignal.constant(0.5, frames: 1_000), name: "click", engine: engine)
            _ = try engine.render(frames: 777)
            for target in [Int64(1_000), 5_003, 20_011] {
                sound.play(at: MediaTime(frames: target, sampleRate: 48_000))
            }
            let out = try engine.render(frames: 30_000)
            let left = SampleAnalysis.channel(out, 0, of: 2)
            for target in [1_000, 5_003, 20_011] {
                let i = target - 777
                #expect(left[i - 1] == 0, "silent just before \(target)")
                #expect(left[i] > 0.1, "sounding on \(target)")
            }
        }
    }

    @Test(
        "play(at:) starts on its frame at any rate (the silent lead-in plays at the voice's rate)",
        arguments: [Float(0.5), 0.985, 1.015, 1.5, 2])
    func scheduledStartAtRate(rate: Float) throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(buffer: TestSignal.constant(0.5, frames: 4_000), name: "dc", engine: engine)
            _ = try engine.render(frames: 777)
            let target = 1_200
            sound.play(at: MediaTime(frames: Int64(target), sampleRate: 48_000), rate: rate)
            let out = try engine.render(frames: 4_800)
            let first = try #require(SampleAnalysis.firstAudibleFrame(out, channels: 2))
            #expect(abs(first + 777 - target) <= 1, "heard at \(first + 777), scheduled for \(target)")
        }
    }

    @Test("Pause and resume continue mid-sound; currentTime holds while paused")
    func pauseResume() throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 300, duration: MediaTime(seconds: 1)), name: "s", engine: engine)
            let voice = sound.play()
            _ = try engine.render(frames: 12_000)
            try voice.pause()
            _ = try engine.render(frames: 2_400)
            #expect(voice.state == .paused)
            let held = voice.currentTime
            let silence = try engine.render(frames: 24_000)
            #expect(SampleAnalysis.peak(silence) == 0)
            #expect(voice.currentTime == held)
            #expect(abs(held.seconds - 0.26) < 0.02)
            try voice.resume()
            let more = try engine.render(frames: 4_800)
            #expect(SampleAnalysis.rms(more) > 0.1)
            #expect(voice.currentTime > held)
        }
    }

    @Test("A voice used after it finished: stop is a no-op, pause and resume throw voiceFinished")
    func finishedVoice() throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(buffer: TestSignal.constant(0.1, frames: 100), name: "tick", engine: engine)
            let voice = sound.play()
            _ = try engine.render(frames: 2_000)
            #expect(voice.isFinished)
            voice.stop()
            voice.volume = 0.5
            let error = try #require(throws: BackbeatError.self) { try voice.pause() }
            #expect(error.code == .voiceFinished)
            #expect(throws: BackbeatError.self) { try voice.resume() }
        }
    }

    @Test("NaN, infinite and negative volume, pan and rate are clamped or ignored")
    func clamping() throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.5)), name: "s", engine: engine)
            let voice = sound.play(volume: .nan, pan: .infinity, rate: -3)
            #expect(voice.volume == 1)
            #expect(voice.pan == 1)
            #expect(voice.rate == 0.5)
            voice.volume = -.infinity
            #expect(voice.volume == 0)
            voice.volume = .nan
            #expect(voice.volume == 0)
            voice.pan = .nan
            #expect(voice.pan == 1)
            voice.rate = .infinity
            #expect(voice.rate == 2)
            let out = try engine.render(frames: 4_800)
            #expect(out.allSatisfy { $0.isFinite })
        }
    }

    @Test("A zero-frame sound is a typed error")
    func zeroFrames() throws {
        try withOfflineEngine { engine in
            let empty = try PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: [])
            let error = try #require(throws: BackbeatError.self) {
                try SoundEffect(buffer: empty, name: "empty", engine: engine)
            }
            #expect(error.code == .emptySound)
        }
    }

    @Test("A sound loads from a file in the background; play on a miss starts when the load completes")
    func loadFromFile() async throws {
        try await withTemporaryDirectoryAsync { dir in
            let url = dir.appendingPathComponent("beep.wav")
            try writeWAV(TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.1)), to: url)
            let engine = try AudioEngine(output: .offline())
            defer { engine.shutdown() }
            let recorder = EventRecorder(engine)
            let sound = SoundEffect(contentsOf: url, engine: engine)
            #expect(!sound.isLoaded)
            let voice = sound.play()
            try await waitUntil { sound.isLoaded }
            let out = try engine.render(frames: 9_600)
            #expect(SampleAnalysis.rms(out) > 0.05)
            #expect(
                recorder.events.contains { if case .voiceStarted(voice.id, _, _, true) = $0 { true } else { false } })
        }
    }

    @Test("Playing a sound whose file has vanished is refused with fileNotFound")
    func vanishedFile() async throws {
        let engine = try AudioEngine(output: .offline())
        defer { engine.shutdown() }
        let recorder = EventRecorder(engine)
        let sound = SoundEffect(contentsOf: URL(fileURLWithPath: "/no/such/sound.wav"), engine: engine)
        let voice = sound.play()
        let refusal = {
            recorder.events.compactMap { event -> BackbeatError? in
                if case .voiceRefused(_, _, .loadFailed(let error)) = event { error } else { nil }
            }.first
        }
        // The loader thread delivers the event just after the voice finishes, outside the lock.
        try await waitUntil { voice.isFinished && refusal() != nil }
        #expect(refusal()?.code == .fileNotFound)
        let error = await #expect(throws: BackbeatError.self) { try await sound.preload() }
        #expect(error?.code == .fileNotFound)
        #expect(error?.description.contains("sound.wav") == true)
    }

    @Test("A cache budget smaller than one sound fails its load with cacheBudgetExceeded")
    func budgetTooSmall() async throws {
        let engine = try AudioEngine(output: .offline())
        defer { engine.shutdown() }
        engine.effectCacheBudget = 1_000
        let sound = try SoundEffect(
            buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.1)), name: "big", engine: engine)
        let error = await #expect(throws: BackbeatError.self) { try await sound.preload() }
        #expect(error?.code == .cacheBudgetExceeded)
    }

    @Test("The cache evicts the least recently used sound that is not playing")
    func eviction() async throws {
        let engine = try AudioEngine(output: .offline())
        defer { engine.shutdown() }
        let bytes = 4_800 * 4
        engine.effectCacheBudget = bytes * 2
        let a = try SoundEffect(buffer: TestSignal.constant(0.1, frames: 4_800), name: "a", engine: engine)
        let b = try SoundEffect(buffer: TestSignal.constant(0.1, frames: 4_800), name: "b", engine: engine)
        let c = try SoundEffect(buffer: TestSignal.constant(0.1, frames: 4_800), name: "c", engine: engine)
        try await a.preload()
        try await b.preload()
        a.play()  // a is playing and more recent: b goes
        try await c.preload()
        #expect(a.isLoaded)
        #expect(!b.isLoaded)
        #expect(c.isLoaded)
    }
}

/// Polls `condition` (a background load's result), yielding between checks; fails after 10 s.
func waitUntil(_ condition: () -> Bool) async throws {
    for _ in 0..<10_000 {
        if condition() { return }
        try await Task.sleep(nanoseconds: 1_000_000)
    }
    Issue.record("condition never became true")
}
