import Backbeat
import BackbeatTesting
import Foundation
import Testing

/// `SampleAnalysis.samples(contentsOf:)`: a file back into the samples that
/// were written, in one call.
@Suite struct SampleAnalysisFilesTests {
    @Test("A WAV written by AssetWriter reads back to the exact samples, channels and rate")
    func assetWriterRoundTrip() async throws {
        try await TestingScratch.withDirectory { dir in
            let url = dir.appendingPathComponent("tone.wav")
            let tone = TestSignal.sine(
                frequency: 440, duration: MediaTime(seconds: 0.3), sampleRate: 44_100, channels: 2)
            try await TestingScratch.writeWAV(tone, to: url)
            let read = try SampleAnalysis.samples(contentsOf: url)
            #expect(read.channels == 2)
            #expect(read.sampleRate == 44_100)
            #expect(read.frameCount == tone.frameCount)
            #expect(read.samples == tone.interleavedFloats)
            #expect(read.channel(1) == tone.channel(1))
            #expect(read.duration == tone.duration)
        }
    }

    @Test("A .file output's WAV reads back to the samples its render returned")
    func fileOutputRoundTrip() async throws {
        try await TestingScratch.withDirectory { dir in
            let url = dir.appendingPathComponent("render.wav")
            let engine = try AudioEngine(output: .file(url: url, sampleRate: 48_000))
            let tone = try SoundEffect(
                buffer: TestSignal.sine(frequency: 1_000, duration: MediaTime(seconds: 0.1)), name: "tone",
                engine: engine)
            tone.play(at: MediaTime(frames: 1_200, sampleRate: 48_000), pan: 0.8)
            let rendered = try engine.render(frames: 9_600)
            engine.shutdown()
            let read = try SampleAnalysis.samples(contentsOf: url)
            #expect(read == AudioSamples(samples: rendered, channels: 2, sampleRate: 48_000))
            #expect(SampleAnalysis.rms(read.channel(1)) > SampleAnalysis.rms(read.channel(0)))
        }
    }

    @Test("A missing file is a typed fileNotFound error")
    func missingFile() throws {
        let url = URL(fileURLWithPath: "/nonexistent-backbeat-\(UUID().uuidString)/take.wav")
        #expect { _ = try SampleAnalysis.samples(contentsOf: url) } throws: { error in
            (error as? BackbeatError)?.code == .fileNotFound && (error as? BackbeatError)?.url == url
        }
    }

    @Test("A file that is not audio is a typed error naming the file")
    func notAudio() async throws {
        try await TestingScratch.withDirectory { dir in
            let url = dir.appendingPathComponent("notes.wav")
            try Data("RIFF? no: these are a designer's notes, not a sound\n".utf8).write(to: url)
            #expect { _ = try SampleAnalysis.samples(contentsOf: url) } throws: { error in
                guard let error = error as? BackbeatError else { return false }
                return [.unsupportedCodec, .corruptFile].contains(error.code) && error.url == url
            }
        }
    }
}
