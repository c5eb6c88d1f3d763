import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// Ogg Opus and MP3 decoded through Backbeat (libsndfile) against the
/// reference decoders, `opusdec` (opus-tools) and `mpg123`, on files the
/// reference encoders (`opusenc`, `lame`) made; and Ogg Opus written by
/// ``AssetWriter`` and `backbeat convert`, read back by Backbeat and by `opusdec`.
///
/// Tolerance: the two decodes are lined up by cross-correlation (within
/// ±2000 frames), then the RMS of their difference, over every frame both
/// hold, must be at least 60 dB below the reference's RMS (a decode of the
/// same stream by the same codec library differs only by rounding; with
/// libsndfile 1.2.0, libopus and libmpg123 here they are sample-identical).
@Suite struct CompressedFormatTests {
    /// Two seconds of 48 kHz stereo: two tones on the left, one on the right, and a little noise.
    static func signal(seconds: Double = 2, sampleRate: Int = 48_000) -> PCMBuffer {
        let frames = Int(seconds * Double(sampleRate))
        var samples = [Float](repeating: 0, count: frames * 2)
        var seed: UInt32 = 3
        for i in 0..<frames {
            let t = Double(i) / Double(sampleRate)
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let noise = Float(Double(seed >> 8) / Double(1 << 24) - 0.5) * 0.01
            samples[2 * i] = Float(0.25 * sin(2 * .pi * 440 * t) + 0.12 * sin(2 * .pi * 1_330 * t)) + noise
            samples[2 * i + 1] = Float(0.2 * sin(2 * .pi * 660 * t)) - noise
        }
        return try! PCMBuffer(format: AudioFormat(sampleRate: sampleRate, channelCount: 2), floats: samples)
    }

    /// Stereo sweeps with noise, which line up at one lag only: the left
    /// channel rises from 100 Hz to 8 kHz, the right falls, each at 0.3 with
    /// noise at 0.05 (or `noise`).
    static func sweep(seconds: Double = 2, sampleRate: Int = 48_000, channels: Int = 2, noise level: Double = 0.05)
        -> PCMBuffer
    {
        let frames = Int(seconds * Double(sampleRate))
        var samples = [Float](repeating: 0, count: frames * channels)
        var seed: UInt32 = 5
        let (low, high) = (100.0, 8_000.0)
        let k = log(high / low) / seconds
        for i in 0..<frames {
            let t = Double(i) / Double(sampleRate)
            let rising = 2 * .pi * low * (exp(k * t) - 1) / k
            let falling = 2 * .pi * high * (1 - exp(-k * t)) / k
            for channel in 0..<channels {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                let noise = (Double(seed >> 8) / Double(1 << 24) - 0.5) * 2 * level
                samples[i * channels + channel] = Float(0.3 * sin(channel == 0 ? rising : falling) + noise)
            }
        }
        return try! PCMBuffer(format: AudioFormat(sampleRate: sampleRate, channelCount: channels), floats: samples)
    }

    /// The RMS of `decoded − reference` in dB below the reference's RMS, per
    /// channel (the worse one), after lining `decoded` up with `reference`.
    static func errorDecibels(_ decoded: [Float], _ reference: [Float], channels: Int) -> (Float, lag: Int) {
        var worst = -Float.infinity
        var lag = 0
        for channel in 0..<channels {
            let a = SampleAnalysis.channel(reference, channel, of: channels)
            let b = SampleAnalysis.channel(decoded, channel, of: channels)
            let start = min(a.count / 2, 24_000)
            let window = Array(a[start..<min(a.count, start + 4_800)])
            let shift = SampleAnalysis.crossCorrelationLag(window, Array(b[start...]), maximumLag: 2_000)
            lag = shift
            var error = 0.0
            var power = 0.0
            var count = 0
            for i in 0..<a.count where i + shift >= 0 && i + shift < b.count {
                let d = Double(b[i + shift]) - Double(a[i])
                error += d * d
                power += Double(a[i]) * Double(a[i])
                count += 1
            }
            guard count > 0, power > 0 else { return (.infinity, lag) }
            worst = max(worst, Float(10 * log10(max(error, 1e-30) / power)))
        }
        return (worst, lag)
    }

    @Test("opus: an opusenc file decodes through Backbeat as opusdec decodes it (error ≤ -60 dB)")
    func opusMatchesOpusdec() async throws {
        try await withTemporaryDirectory { dir in
            let wav = dir.appendingPathComponent("source.wav")
            try await Media.write(Self.sweep(), to: wav, as: .wav, commonFormat: .int16)
            let opus = dir.appendingPathComponent("source.opus")
            let reference = dir.appendingPathComponent("opusdec.wav")
            #expect(try runTool("opusenc", ["--quiet", wav.path, opus.path]).status == 0)
            #expect(try runTool("opusdec", ["--quiet", "--float", opus.path, reference.path]).status == 0)
            let decoded = try Media.read(opus, settings: AudioFormat(sampleRate: 48_000, channelCount: 2))
            let expected = try Media.read(reference, settings: AudioFormat(sampleRate: 48_000, channelCount: 2))
            #expect(try await AudioAsset(url: opus).load(.format).sampleRate == 48_000)
            #expect(abs(decoded.floats.count - expected.floats.count) <= 2 * 960)
            let (error, lag) = Self.errorDecibels(decoded.floats, expected.floats, channels: 2)
            #expect(error <= -60, "error \(error) dB at lag \(lag)")
        }
    }

    @Test("mp3: a lame file decodes through Backbeat as mpg123 decodes it (error ≤ -60 dB)")
    func mp3MatchesMpg123() async throws {
        try await withTemporaryDirectory { dir in
            let wav = dir.appendingPathComponent("source.wav")
            try await Media.write(Self.sweep(sampleRate: 44_100), to: wav, as: .wav, commonFormat: .int16)
            let mp3 = dir.appendingPathComponent("source.mp3")
            let reference = dir.appendingPathComponent("mpg123.wav")
            #expect(try runTool("lame", ["--quiet", "-b", "192", wav.path, mp3.path]).status == 0)
            #expect(try runTool("mpg123", ["-q", "-e", "f32", "-w", reference.path, mp3.path]).status == 0)
            let settings = AudioFormat(sampleRate: 44_100, channelCount: 2)
            let decoded = try Media.read(mp3, settings: settings)
            let expected = try Media.read(reference, settings: settings)
            #expect(try await AudioAsset(url: mp3).load(.format).sampleRate == 44_100)
            #expect(abs(decoded.floats.count - expected.floats.count) <= 2 * 2_304)
            let (error, lag) = Self.errorDecibels(decoded.floats, expected.floats, channels: 2)
            #expect(error <= -60, "error \(error) dB at lag \(lag)")
        }
    }

    @Test(
        "opus: AssetWriter writes Ogg Opus that Backbeat and opusdec read back close to the source (error ≤ -20 dB), at each Opus rate"
    )
    func opusWriteRoundTrip() async throws {
        try await withTemporaryDirectory { dir in
            for (rate, channels) in [(48_000, 2), (16_000, 1)] {
                // Lossy coding keeps a sweep's waveform, not a noise's.
                let source = Self.sweep(sampleRate: rate, channels: channels, noise: 0)
                let opus = dir.appendingPathComponent("written-\(rate).opus")
                try await Media.write(source, to: opus, as: .oggOpus, tags: AudioTags(title: "Theme"))
                let asset = AudioAsset(url: opus)
                let format = try await asset.load(.format)
                #expect(format.channelCount == channels)
                let settings = AudioFormat(sampleRate: rate, channelCount: channels)
                let decoded = try Media.read(opus, settings: settings)
                let (error, lag) = Self.errorDecibels(decoded.floats, source.interleavedFloats, channels: channels)
                #expect(error <= -20, "\(rate) Hz: error \(error) dB at lag \(lag)")
                // The reference decoder reads it too (at the rate the file says it came from).
                let reference = dir.appendingPathComponent("opusdec-\(rate).wav")
                #expect(
                    try runTool("opusdec", ["--quiet", "--float", "--rate", "\(rate)", opus.path, reference.path])
                        .status == 0)
                let expected = try Media.read(reference, settings: settings)
                if rate == 48_000 {
                    let (againstSource, _) = Self.errorDecibels(
                        expected.floats, source.interleavedFloats, channels: channels)
                    #expect(againstSource <= -20, "\(rate) Hz: opusdec's error \(againstSource) dB")
                } else {
                    // opusdec resamples from 48 kHz with its own filter (another phase): compare levels.
                    let level =
                        20 * log10(SampleAnalysis.rms(expected.floats) / SampleAnalysis.rms(source.interleavedFloats))
                    #expect(abs(level) <= 1.5, "\(rate) Hz: opusdec's level \(level) dB")
                }
            }
        }
    }

    @Test("opus: a rate Opus does not take is a typed error before anything is written, and leaves no file")
    func opusBadRate() async throws {
        try await withTemporaryDirectory { dir in
            let opus = dir.appendingPathComponent("bad.opus")
            await #expect(throws: BackbeatError.self) {
                try await Media.write(Self.signal(seconds: 0.1, sampleRate: 44_100), to: opus, as: .oggOpus)
            }
            #expect(Media.listing(dir).isEmpty)
            #expect(AudioFileType(pathExtension: "OPUS") == .oggOpus)
            #expect(AudioFileType(pathExtension: "ogg") == .oggVorbis)
        }
    }

    @Test("opus: backbeat convert writes Ogg Opus by extension, at 48 kHz from a 44.1 kHz source")
    func convertToOpus() async throws {
        try await withTemporaryDirectory { dir in
            let wav = dir.appendingPathComponent("in.wav")
            try await Media.write(Self.signal(seconds: 1, sampleRate: 44_100), to: wav, as: .wav)
            let out = dir.appendingPathComponent("out.opus")
            let r = try BackbeatTool.run(["convert", wav.path, out.path, "--no-progress"])
            #expect(r.status == 0, "\(r.stderr)")
            let format = try await AudioAsset(url: out).load(.format)
            #expect(format.sampleRate == 48_000 && format.channelCount == 2)
            let decoded = try Media.read(out, settings: AudioFormat(sampleRate: 48_000, channelCount: 2))
            let left = SampleAnalysis.channel(decoded.floats, 0, of: 2)
            let middle = Array(left[9_600..<38_400])
            #expect(abs(SampleAnalysis.level(of: middle, atFrequency: 440, sampleRate: 48_000) - 0.25) < 0.03)
            // An explicit rate Opus does not take is a one-line typed error and no file.
            let bad = dir.appendingPathComponent("bad.opus")
            let r2 = try BackbeatTool.run(["convert", wav.path, bad.path, "--rate", "44100", "--no-progress"])
            #expect(r2.status != 0)
            #expect(r2.stderr.split(separator: "\n").count == 1, "\(r2.stderr)")
            #expect(!FileManager.default.fileExists(atPath: bad.path))
        }
    }
}
