import Backbeat
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatEffects
@testable import BackbeatEngine
@testable import BackbeatMedia

/// Loop points on sound effects: the intro once, then the region, to the
/// sample; the voice's time, loop count and virtual life follow the region.
@Suite("Effect loop points")
struct EffectLoopPointsTests {
    /// Where `file` (interleaved stereo) starts in `out`: the lag in 0..<4800
    /// where the first 2,000 frames match best.
    static func lag(of file: [Float], in out: [Float]) -> Int {
        func error(_ lag: Int) -> Float {
            var sum: Float = 0
            for k in 0..<4_000 { sum += abs(out[lag * 2 + k] - file[k]) }
            return sum
        }
        return (0..<4_800).min { error($0) < error($1) }!
    }

    /// The worst difference between `out` from `outFrame` and `file` from `fileFrame`, over `count` stereo frames.
    static func worst(_ out: [Float], _ outFrame: Int, _ file: [Float], _ fileFrame: Int, count: Int) -> Float {
        var worst: Float = 0
        for k in 0..<count * 2 { worst = max(worst, abs(out[outFrame * 2 + k] - file[fileFrame * 2 + k])) }
        return worst
    }

    @Test("Ogg loop tags on an effect: the intro plays once, then every seam jumps from the loop end to the loop start")
    func loopsFromTags() async throws {
        try await withTemporaryDirectoryAsync { dir in
            let url = dir.appendingPathComponent("engine-hum.ogg")
            let file = try await Fixtures.loopTaggedOgg(
                at: url, seconds: 0.5, loop: LoopPoints(start: 6_000, length: 12_000))
            let engine = try AudioEngine(output: .offline())
            defer { engine.shutdown() }
            do {
                let sound = SoundEffect(contentsOf: url, engine: engine)
                try await sound.preload()
                #expect(sound.loopPoints == (try LoopPoints(start: 6_000, end: 18_000)))
                let voice = sound.play(volume: 0.5, looping: .forever)
                voice.renderingAlgorithm = .stereoPassThrough
                let half = file.map { $0 * 0.5 }
                let out = try engine.render(frames: 6_000 + 12_000 * 5 + 4_800)
                let first = Self.lag(of: half, in: out)
                #expect(
                    Self.worst(out, first, half, 0, count: 18_000) < 1e-4, "the intro and the first loop, straight")
                for n in 1...4 {
                    let seam = first + 6_000 + 12_000 * n
                    #expect(
                        Self.worst(out, seam, half, 6_000, count: 12_000) < 1e-4,
                        "loop \(n + 1) is the region again, from its first frame")
                    // The frame after the loop end is the frame at the loop start, not the one after the end.
                    #expect(abs(out[seam * 2] - half[6_000 * 2]) < 1e-4)
                    #expect(abs(out[seam * 2] - half[18_000 * 2]) > 1e-3)
                }
                #expect(voice.loopCount == 5, "intro, five loops and a bit")
            }
        }
    }

    /// A ramp: each frame's value says which frame it is (stereo, both channels alike).
    static func ramp(_ frames: Int) throws -> PCMBuffer {
        let samples = (0..<frames).flatMap { i -> [Float] in
            let v = Float(i + 1) / Float(frames * 2)
            return [v, v]
        }
        return try PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 2), floats: samples)
    }

    @Test("Loop points set through the API: `.times(3)` plays the intro, the region three times and the tail")
    func finiteFromAPI() throws {
        try withOfflineEngine { engine in
            let buffer = try Self.ramp(9_600)
            let file = buffer.interleavedFloats
            let sound = try SoundEffect(
                buffer: buffer, name: "ramp", loopPoints: try LoopPoints(start: 2_400, end: 7_200), engine: engine)
            let voice = sound.play(looping: .times(3))
            voice.renderingAlgorithm = .stereoPassThrough
            let out = try engine.render(frames: 9_600 + 2 * 4_800 + 4_800)
            let first = Self.lag(of: file, in: out)
            let source = Array(0..<7_200) + Array(2_400..<7_200) + Array(2_400..<9_600)
            var worst: Float = 0
            for (i, f) in source.enumerated() { worst = max(worst, abs(out[(first + i) * 2] - file[f * 2])) }
            #expect(worst < 1e-5, "every frame is the file's frame it should be")
            #expect(SampleAnalysis.lastAudibleFrame(out, channels: 2) == first + source.count - 1)
            #expect(voice.isFinished)
            // Once: straight through, the file as it is.
            let once = sound.play()
            once.renderingAlgorithm = .stereoPassThrough
            let straight = try engine.render(frames: 9_600 + 4_800)
            let start = Self.lag(of: file, in: straight)
            #expect(Self.worst(straight, start, file, 0, count: 9_600) < 1e-5)
            #expect(SampleAnalysis.lastAudibleFrame(straight, channels: 2) == start + 9_599)
        }
    }

    @Test("currentTime and loopCount follow the region: t before the start, else start + (t - start) mod length")
    func timeFollowsRegion() throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(
                buffer: try Self.ramp(9_600), name: "ramp", loopPoints: try LoopPoints(start: 2_400, end: 7_200),
                engine: engine)
            let voice = sound.play(looping: .forever)
            _ = try engine.render(frames: 1_200)
            #expect(voice.loopCount == 0)
            #expect(abs(voice.currentTime.frames(atSampleRate: 48_000, rounding: .nearest) - 1_200) <= 256)
            _ = try engine.render(frames: 2_400 + 4_800 * 2 + 1_200 - 1_200)  // t = 2,400 + 2 loops + 1,200
            #expect(voice.loopCount == 2)
            let t = voice.currentTime.frames(atSampleRate: 48_000, rounding: .nearest)
            #expect(abs(t - 3_600) <= 256, "in the region, not past it: \(t)")
            #expect(voice.duration == MediaTime(frames: 9_600, sampleRate: 48_000))
        }
    }

    @Test(
        "A virtual voice with loop points keeps the region's time and comes back in phase with one that never left",
        arguments: [
            (1, 48_017),  // away from the intro's middle into the region: comes back in the region
            (6, 4_000),  // away and back within a long intro: comes back in the intro, then loops
        ])
    func virtualInPhase(startTenths: Int64, away: Int) throws {
        // A chirp (never repeats within itself) with a loop region from `startTenths` tenths to nine tenths.
        func render(away: Int?) throws -> (out: [Float], virtualWhileFar: Bool, loops: Int, time: MediaTime) {
            try withOfflineEngine { engine in
                let chirp = try VirtualVoiceTests.chirp(sampleRate: 48_000)
                let n = Int64(chirp.frameCount)
                let sound = try SoundEffect(
                    buffer: chirp, name: "chirp",
                    loopPoints: try LoopPoints(start: n * startTenths / 10, end: n * 9 / 10),
                    engine: engine)
                let voice = sound.play(at: nil, position: VirtualVoiceTests.near, looping: .forever)
                _ = try engine.render(frames: 960)
                var virtualWhileFar = false
                if let away {
                    voice.position = VirtualVoiceTests.far
                    _ = try engine.render(frames: away)
                    virtualWhileFar = voice.state == .virtual
                    voice.position = VirtualVoiceTests.near
                }
                _ = try engine.render(frames: 9_600 + (away == nil ? awayFrames : 0))
                let out = try engine.render(frames: 24_000)
                return (out, virtualWhileFar, voice.loopCount, voice.currentTime)
            }
        }
        let awayFrames = away
        let reference = try render(away: nil)
        let returned = try render(away: away)
        #expect(returned.virtualWhileFar)
        #expect(returned.loops == reference.loops && reference.loops >= 1)
        let drift = abs((returned.time - reference.time).seconds)
        #expect(drift < 0.006)
        let a = SampleAnalysis.channel(reference.out, 0, of: 2)
        let b = SampleAnalysis.channel(returned.out, 0, of: 2)
        #expect(SampleAnalysis.rms(a) > 0.1)
        let difference = zip(a, b).map { $0 - $1 }
        let ratio = 20 * log10(Double(SampleAnalysis.rms(difference)) / Double(SampleAnalysis.rms(a)))
        #expect(ratio < -60, "difference \(ratio) dB")
    }

    @Test("play(at:) with loop points: the silent lead-in, then the intro once, then the region, to the sample")
    func scheduledStart() throws {
        try withOfflineEngine { engine in
            let buffer = try Self.ramp(9_600)
            let file = buffer.interleavedFloats
            let sound = try SoundEffect(
                buffer: buffer, name: "ramp", loopPoints: try LoopPoints(start: 2_400, end: 7_200), engine: engine)
            let voice = sound.play(at: MediaTime(frames: 3_000, sampleRate: 48_000), looping: .forever)
            voice.renderingAlgorithm = .stereoPassThrough
            let out = try engine.render(frames: 3_000 + 7_200 + 4_800 * 3)
            let heardFrom = try #require(SampleAnalysis.firstAudibleFrame(out, channels: 2, threshold: 1e-5))
            #expect(heardFrom == 3_000, "heard on the frame asked for")
            let source = Array(0..<7_200) + Array(2_400..<7_200) + Array(2_400..<7_200) + Array(2_400..<7_200)
            var worst: Float = 0
            for (i, f) in source.enumerated() { worst = max(worst, abs(out[(3_000 + i) * 2] - file[f * 2])) }
            #expect(worst < 1e-5, "every frame is the file's frame it should be")
        }
    }

    @Test("A finite voice with loop points that stays virtual ends when its intro, loops and tail would have")
    func virtualFiniteEnds() throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(
                buffer: try Self.ramp(9_600), name: "ramp", loopPoints: try LoopPoints(start: 2_400, end: 7_200),
                engine: engine)
            let voice = sound.play(at: nil, position: VirtualVoiceTests.far, looping: .times(3))
            // 9,600 + 2 × 4,800 = 19,200 frames in all.
            _ = try engine.render(frames: 19_200 - 2 * engine.updateInterval)
            #expect(voice.state == .virtual)
            #expect(voice.loopCount == 2, "in the last round of the region or its tail")
            _ = try engine.render(frames: 4 * engine.updateInterval)
            #expect(voice.isFinished)
        }
    }

    @Test("After the device is lost, a voice with loop points goes on in its region on the replacement")
    func deviceLoss() throws {
        try withOfflineEngine { engine in
            let ramp = try PCMBuffer(
                format: AudioFormat(sampleRate: 48_000, channelCount: 1),
                floats: (0..<9_600).map { Float($0 + 1) / 9_600 })
            let start = engine.device.liveBuffers.count
            let sound = try SoundEffect(
                buffer: ramp, name: "ramp", loopPoints: try LoopPoints(start: 2_400, end: 7_200), engine: engine)
            // Intro, region and tail: three buffers, the sound's bytes once.
            #expect(engine.device.liveBuffers.count == start + 3)
            #expect(engine.withLock { engine.effectCacheLocked.usedBytes } == 9_600 * MemoryLayout<Float>.size)
            let voice = sound.play(volume: 0.5, looping: .forever)
            // t = 13,200: the intro, two loops, then 1,200 into the region (frame 3,600).
            let before = SampleAnalysis.channel(try engine.render(frames: 13_200), 0, of: 2).last!
            #expect(voice.loopCount == 2)
            let buffers = engine.device.liveBuffers.count
            engine.simulateDeviceLoss()
            #expect(engine.device.liveBuffers.count == buffers, "the whole sound, intro, region and tail again")
            // One loop later (4,800 frames) the voice is at the same frame of the region.
            let after = SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2).last!
            #expect(voice.state == .playing)
            #expect(voice.loopCount == 3)
            #expect(
                abs(after - before) / before < 0.15, "heard at frame 3,600 again, not elsewhere: \(before) \(after)")
        }
    }

    @Test("Loop points that start past the sound's end: a typed error, from the API and from a file")
    func badLoopPoints() async throws {
        try withOfflineEngine { engine in
            #expect(throws: BackbeatError.self) {
                _ = try SoundEffect(
                    buffer: try Self.ramp(4_800), name: "short", loopPoints: try LoopPoints(start: 4_800, end: 9_600),
                    engine: engine)
            }
            do {
                _ = try SoundEffect(
                    buffer: try Self.ramp(4_800), name: "short", loopPoints: try LoopPoints(start: 4_800, end: 9_600),
                    engine: engine)
            } catch let error as BackbeatError {
                #expect(error.code == .invalidLoopPoints)
            }
            // An end past the sound's end is fitted to it.
            let fitted = try SoundEffect(
                buffer: try Self.ramp(4_800), name: "fitted", loopPoints: try LoopPoints(start: 1_000, end: 90_000),
                engine: engine)
            #expect(fitted.loopPoints == (try LoopPoints(start: 1_000, end: 4_800)))
        }
        try await withTemporaryDirectoryAsync { dir in
            let url = dir.appendingPathComponent("short.wav")
            try Songs.write(Songs.sineFrames(0..<4_800, frequency: 480), to: url)
            let engine = try AudioEngine(output: .offline())
            defer { engine.shutdown() }
            let sound = SoundEffect(
                contentsOf: url, loopPoints: try LoopPoints(start: 4_800, end: 9_600), engine: engine)
            let error = await #expect(throws: BackbeatError.self) { try await sound.preload() }
            #expect(error?.code == .invalidLoopPoints)
            #expect(error?.description.contains("short.wav") == true)
            #expect(sound.loopPoints == nil)
        }
    }
}
