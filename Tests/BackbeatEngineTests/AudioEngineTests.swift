import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatOpenAL

/// Plays `pcm` once on a fresh source through the OpenAL door.
private func playRaw(_ pcm: PCMBuffer, on engine: AudioEngine) throws {
    let buffer = try engine.device.generateBuffer(pcm)
    let source = ALSource(name: try engine.device.generateSource())
    try engine.device.withContext {
        source.reset()
        source.attach(buffer)
        source.play()
        try engine.device.check("alSourcePlay")
    }
}

@Suite("AudioEngine")
struct AudioEngineTests {
    @Test("A 440 Hz sine plays at its amplitude and frequency, then silence")
    func sinePlaysOnce() throws {
        try withOfflineEngine { engine in
            try playRaw(TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.5), amplitude: 0.5), on: engine)
            let out = try engine.render(frames: 48_000)
            let left = SampleAnalysis.channel(out, 0, of: 2)
            let right = SampleAnalysis.channel(out, 1, of: 2)
            // OpenAL Soft 1.19 pans a mono source straight ahead into each
            // stereo channel at a gain of 0.5957 (-4.5 dB).
            let playing = left[1_000..<23_000]
            #expect(abs(SampleAnalysis.peak(playing) - 0.5 * 0.5957) < 0.002)
            #expect(abs(SampleAnalysis.peak(right[1_000..<23_000]) - SampleAnalysis.peak(playing)) < 0.001)
            // 22,000 frames at 48 kHz is 0.4583 s: 201.7 cycles of 440 Hz.
            let crossings = SampleAnalysis.risingZeroCrossings(playing)
            #expect((201...202).contains(crossings))
            #expect(SampleAnalysis.peak(left[24_200...]) == 0)
            #expect(SampleAnalysis.peak(right[24_200...]) == 0)
        }
    }

    @Test("Two renders of the same scene are bit-identical")
    func deterministic() throws {
        func scene() throws -> [Float] {
            try withOfflineEngine { engine in
                try playRaw(TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.2)), on: engine)
                try playRaw(
                    TestSignal.sine(frequency: 660, duration: MediaTime(seconds: 0.3), amplitude: 0.3), on: engine)
                var out: [Float] = []
                for chunk in [100, 4_000, 17, 9_000] { out += try engine.render(frames: chunk) }
                return out
            }
        }
        let first = try scene()
        let second = try scene()
        #expect(first == second)
        #expect(SampleAnalysis.peak(first) > 0.1)
    }

    @Test("Rendering is independent of how it is split into calls")
    func splitIndependent() throws {
        let whole = try withOfflineEngine { engine in
            try playRaw(TestSignal.sine(frequency: 300, duration: MediaTime(seconds: 0.1)), on: engine)
            return try engine.render(frames: 6_000)
        }
        let split = try withOfflineEngine { engine in
            try playRaw(TestSignal.sine(frequency: 300, duration: MediaTime(seconds: 0.1)), on: engine)
            return try engine.render(frames: 1_234) + engine.render(frames: 4_766)
        }
        #expect(whole == split)
    }

    @Test("Nothing playing renders exact silence", arguments: [1, 2])
    func silence(channels: Int) throws {
        try withOfflineEngine(sampleRate: 44_100, channels: channels) { engine in
            let out = try engine.render(frames: 10_000)
            #expect(out.count == 10_000 * channels)
            #expect(out.allSatisfy { $0 == 0 })
        }
    }

    @Test("Engine time advances only by rendering, exactly")
    func clock() throws {
        try withOfflineEngine(sampleRate: 44_100) { engine in
            #expect(engine.currentTime == .zero)
            _ = try engine.render(frames: 441)
            #expect(engine.currentTime == MediaTime(value: 1, timescale: 100))
            try engine.advance(by: MediaTime(seconds: 1.5))
            #expect(engine.currentTime.frames(atSampleRate: 44_100) == 441 + 66_150)
        }
    }

    @Test("Opening a device that does not exist is a typed error naming it")
    func missingDevice() throws {
        let error = try #require(throws: BackbeatError.self) {
            try AudioEngine(output: .device(name: "no such device"))
        }
        #expect(error.code == .deviceUnavailable)
        #expect(error.description.contains("no such device"))
    }

    @Test("render(frames: 0) and negative frames throw")
    func zeroFrames() throws {
        try withOfflineEngine { engine in
            for frames in [0, -5] {
                let error = try #require(throws: BackbeatError.self) { try engine.render(frames: frames) }
                #expect(error.code == .invalidArgument)
            }
        }
    }

    @Test("Sample rates of zero or below are invalid; absurd ones unsupported", arguments: [0, -1, -48_000])
    func badSampleRate(rate: Int) throws {
        let error = try #require(throws: BackbeatError.self) {
            try AudioEngine(output: .offline(sampleRate: rate, channels: 2))
        }
        #expect(error.code == .invalidArgument)
    }

    @Test("Unsupported channel counts and sample rates are typed errors")
    func unsupportedFormats() throws {
        #expect(throws: BackbeatError.self) { try AudioEngine(output: .offline(sampleRate: 48_000, channels: 3)) }
        #expect(throws: BackbeatError.self) { try AudioEngine(output: .offline(sampleRate: 1_000_000, channels: 2)) }
    }

    @Test("Use after shutdown throws, and shutdown is idempotent")
    func afterShutdown() throws {
        let engine = try AudioEngine(output: .offline())
        engine.shutdown()
        engine.shutdown()
        #expect(!engine.isRunning)
        let error = try #require(throws: BackbeatError.self) { try engine.render(frames: 10) }
        #expect(error.code == .engineShutDown)
        #expect(throws: BackbeatError.self) { try engine.device.generateSource() }
    }

    @Test("Shutdown releases every source and buffer")
    func shutdownReleases() throws {
        let engine = try AudioEngine(output: .offline())
        let voiceSources = engine.voiceSourceCount  // the voice pool takes its sources on first use
        let pooled = engine.device.liveSources.count
        #expect(pooled == voiceSources)
        try playRaw(TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.1)), on: engine)
        #expect(engine.device.liveSources.count == pooled + 1)
        #expect(engine.device.liveBuffers.count == 1)
        engine.shutdown()
        #expect(engine.device.liveSources.isEmpty)
        #expect(engine.device.liveBuffers.isEmpty)
        #expect(engine.device.isClosed)
    }

    @Test("A .file output writes the rendered frames to a WAV file on shutdown")
    func fileOutput() throws {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("out.wav")
            let engine = try AudioEngine(output: .file(url: url, sampleRate: 48_000))
            try playRaw(TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.1)), on: engine)
            let rendered = try engine.render(frames: 9_600)
            #expect(!FileManager.default.fileExists(atPath: url.path), "nothing at the target until finished")
            engine.shutdown()
            let data = try Data(contentsOf: url)
            // 44-byte RIFF header plus fmt extension and fact chunk for float; the samples are the tail.
            let sampleBytes = rendered.count * 4
            let tail = data.suffix(sampleBytes)
            let decoded = tail.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            #expect(decoded == rendered)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.wav"])
        }
    }

    @Test("A .file output in a missing directory is a typed error and leaves nothing")
    func fileOutputMissingDirectory() throws {
        let url = URL(fileURLWithPath: "/nonexistent-backbeat-dir/out.wav")
        let error = try #require(throws: BackbeatError.self) { try AudioEngine(output: .file(url: url)) }
        #expect(error.code == .writeFailed)
        #expect(error.description.contains("out.wav"))
    }

    @Test("A paced .file output renders on its own, in real time")
    func pacedFile() throws {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("paced.wav")
            let engine = try AudioEngine(output: .file(url: url, sampleRate: 48_000, pacing: .realTime))
            #expect(throws: BackbeatError.self) { try engine.render(frames: 10) }
            // Wait on engine time, not on a sleep of fixed length.
            while engine.currentTime < MediaTime(value: 1, timescale: 20) { usleep(1_000) }
            engine.shutdown()
            let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
            #expect(size > 2_400 * 8)
        }
    }
}
