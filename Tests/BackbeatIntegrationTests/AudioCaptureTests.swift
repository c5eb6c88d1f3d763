import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// Capture (ALC_EXT_CAPTURE) on a real sound server: the engine plays a tone
/// into a null sink, and capture hears it on that sink's monitor. The scenes
/// run as child processes (OpenAL picks its backends once per process).
@Suite struct AudioCaptureTests {
    /// A 1 kHz tone at 0.5: -6.02 dBFS peak, -9.03 dBFS RMS.
    static let peak: Float = 20 * log10(0.5)
    static let rms: Float = 20 * log10(Float(0.5) / Float(2).squareRoot())

    /// Asserts that `samples` (one channel) hold a 1 kHz tone at 0.5 (±1.5 dB), and nothing at 3 kHz.
    static func expectTone(_ samples: [Float], sampleRate: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let level = SampleAnalysis.level(of: samples, atFrequency: 1_000, sampleRate: sampleRate)
        #expect(abs(20 * log10(max(level, 1e-9)) - peak) <= 1.5, "1 kHz at \(level)", sourceLocation: sourceLocation)
        #expect(
            SampleAnalysis.level(of: samples, atFrequency: 3_000, sampleRate: sampleRate) < 0.01,
            sourceLocation: sourceLocation)
        // The frequency from the spacing of rising zero crossings: 1000 Hz
        // within 0.5 %. Their median spacing, not their count over the span:
        // a capture that lost a few milliseconds on a busy machine read as
        // 991 Hz by count (8 crossings short over 0.9 s).
        let frequency = SampleAnalysis.zeroCrossingFrequency(samples, sampleRate: sampleRate) ?? 0
        #expect(abs(frequency - 1_000) <= 5, "\(frequency) Hz", sourceLocation: sourceLocation)
    }

    @Test(
        "soundServer: capture from a null sink's monitor hears the engine's 1 kHz tone at its level, stamped in engine time, recorded to WAV files through the asset writer"
    )
    func soundServerCaptureLoopback() throws {
        let server = try PrivateSoundServer(sinks: ["Backbeat-Main"])
        defer { server.stop() }
        try withTemporaryDirectory { dir in
            let scene = try DeviceScene("capture", server: server, directory: dir)
            let devices = try #require(scene.line("devices"), "\(scene.all)")
            let done = scene.line("done")
            #expect(scene.finish() == 0, "\(scene.all)")
            try #require(done != nil, "\(scene.all)")
            #expect(devices.split(separator: " ").last?.split(separator: ",").contains("Backbeat-Main.monitor") == true)
            #expect(scene.line("default") == "default Backbeat-Main.monitor")
            // An unknown device and a zero duration are typed errors; the second leaves no file.
            #expect(DeviceScene.value("code", in: scene.line("unknown")) == "capture_device_unavailable")
            let bad = scene.line("badduration")
            #expect(DeviceScene.value("code", in: bad) == "invalid_argument", "\(bad ?? "")")
            #expect(DeviceScene.value("file", in: bad) == "false")

            let recorded = try #require(scene.line("recorded"))
            #expect(DeviceScene.value("device", in: recorded) == "Backbeat-Main.monitor")
            #expect(DeviceScene.value("capturing", in: recorded) == "false")
            // 20-ms buffers, each 20 ms after the one before, the first at or after
            // the engine time when recording began.
            #expect(try #require(DeviceScene.number("buffers", in: recorded)) >= 50)
            #expect(DeviceScene.value("steps", in: recorded) == "true", "\(recorded)")
            let before = try #require(DeviceScene.number("before", in: recorded))
            let first = try #require(DeviceScene.number("first", in: recorded))
            #expect(first >= before && first < before + 1, "\(recorded)")
            // The level meter on the latest buffer.
            let peak = try #require(DeviceScene.number("peak", in: recorded))
            let rms = try #require(DeviceScene.number("rms", in: recorded))
            #expect(abs(Float(peak) - Self.peak) <= 1.5, "\(recorded)")
            #expect(abs(Float(rms) - Self.rms) <= 1.5, "\(recorded)")

            // The recording: exactly one second of mono float at 48 kHz, the tone throughout.
            let mono = try Media.read(dir.appendingPathComponent("capture.wav"))
            #expect(mono.format == AudioFormat(sampleRate: 48_000, channelCount: 1))
            #expect(mono.floats.count == 48_000)
            let start = try #require(SampleAnalysis.firstAudibleFrame(mono.floats, channels: 1, threshold: 0.1))
            #expect(start < 2_400, "the tone starts \(start) frames in")
            Self.expectTone(Array(mono.floats[2_400..<45_600]), sampleRate: 48_000)
            #expect(abs(20 * log10(SampleAnalysis.rms(mono.floats[2_400..<45_600])) - Self.rms) <= 1.5)

            // Stereo 16-bit at 44.1 kHz: half a second, the tone on both channels.
            let stereo = try Media.read(dir.appendingPathComponent("capture16.wav"))
            #expect(stereo.format == AudioFormat(sampleRate: 44_100, channelCount: 2, commonFormat: .int16))
            let floats = stereo.int16s.map { Float($0) / 32_768 }
            #expect(floats.count == 2 * 22_050)
            for channel in 0..<2 {
                let samples = SampleAnalysis.channel(floats, channel, of: 2)
                Self.expectTone(Array(samples[2_205..<19_845]), sampleRate: 44_100)
            }
        }
    }

    @Test(
        "soundServer: with no sound server and no capture card, opening the default capture device is a typed error, and the libraries print nothing",
        .enabled(if: !FileManager.default.fileExists(atPath: "/dev/snd"), "a sound card is present")
    )
    func soundServerNoCaptureDevice() throws {
        let server = try PrivateSoundServer(sinks: ["Backbeat-Main"])
        defer { server.stop() }
        try withTemporaryDirectory { dir in
            // The server's address is replaced by one where nothing listens, and every backend is tried.
            let nowhere = dir.appendingPathComponent("nothing-listens-here").path
            let scene = try DeviceScene(
                "nocapture", server: server, directory: dir,
                environment: ["PULSE_SERVER": "unix:\(nowhere)", "ALSOFT_DRIVERS": ""])
            let line = scene.line("error")
            #expect(scene.finish() == 0, "\(scene.all)")
            #expect(DeviceScene.value("code", in: line) == "capture_device_unavailable", "\(scene.all)")
            #expect(line?.contains("alcCaptureOpenDevice") == true, "\(line ?? "")")
            #expect(scene.line("done") != nil)
            let noise = try String(contentsOfFile: scene.log, encoding: .utf8)
            #expect(noise.isEmpty, "\(noise)")
        }
    }

    @Test("capture: the level meter reads peak and RMS in dBFS, and silence at the floor")
    func captureLevel() {
        var sine = [Float]()
        for i in 0..<48_000 { sine.append(Float(sin(2 * Double.pi * 1_000 * Double(i) / 48_000))) }
        let full = AudioCapture.Level(samples: sine)
        #expect(abs(full.peakPower) < 0.01)
        #expect(abs(full.averagePower + 3.01) < 0.01)
        let half = AudioCapture.Level(samples: sine.map { $0 / 2 })
        #expect(abs(half.peakPower + 6.02) < 0.01)
        #expect(abs(half.averagePower + 9.03) < 0.01)
        #expect(AudioCapture.Level(samples: [Float](repeating: 0, count: 100)) == .silence)
        #expect(AudioCapture.Level(samples: []) == .silence)
        #expect(AudioCapture.Level(samples: [.nan, .infinity, 0.5]).peakPower == 20 * log10(Float(0.5)))
    }

    @Test("capture: a format or buffer duration out of range is a typed error before any device is opened")
    func captureBadArguments() {
        let cases: [(AudioFormat, MediaTime)] = [
            (AudioFormat(sampleRate: 48_000, channelCount: 3), MediaTime(value: 20, timescale: 1_000)),
            (AudioFormat(sampleRate: 4_000, channelCount: 1), MediaTime(value: 20, timescale: 1_000)),
            (AudioFormat(sampleRate: 400_000, channelCount: 1), MediaTime(value: 20, timescale: 1_000)),
            (AudioFormat(sampleRate: 48_000, channelCount: 1), .zero),
            (AudioFormat(sampleRate: 48_000, channelCount: 1), MediaTime(value: 2, timescale: 1)),
            (AudioFormat(sampleRate: 48_000, channelCount: 0), MediaTime(value: 20, timescale: 1_000)),
        ]
        for (format, duration) in cases {
            #expect(throws: BackbeatError.self) {
                do {
                    _ = try AudioCapture(format: format, bufferDuration: duration)
                } catch let error as BackbeatError {
                    #expect(error.code == .invalidArgument, "\(error)")
                    throw error
                }
            }
        }
    }
}
