import Backbeat
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@Suite("HRTF: interaural time, data sets and output type")
struct HRTFSelectionTests {
    /// Seeded white noise, 1 s mono at 48 kHz: broadband, so the ears' delay shows in the correlation.
    static func noise() throws -> PCMBuffer {
        var random = SplitMix64(seed: 17)
        let samples = (0..<48_000).map { _ in Float(Double(random.next() >> 11) / Double(1 << 53) * 0.6 - 0.3) }
        return try PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: samples)
    }

    /// Left and right channels of noise played 2 m away at `azimuth` degrees (90 is right).
    static func ears(
        outputType: AudioEnvironmentOutputType, azimuth: Float = 90, setUp: (AudioEngine) throws -> Void = { _ in }
    ) throws -> (left: [Float], right: [Float]) {
        try withOfflineEngine { engine in
            engine.outputType = outputType
            try setUp(engine)
            let sound = try SoundEffect(buffer: try noise(), name: "noise", engine: engine)
            let radians = azimuth * .pi / 180
            sound.play(
                at: nil, position: Audio3DPoint(x: 2 * sin(radians), y: 0, z: -2 * cos(radians)), looping: .forever)
            _ = try engine.render(frames: 4_800)
            let out = try engine.render(frames: 9_600)
            return (SampleAnalysis.channel(out, 0, of: 2), SampleAnalysis.channel(out, 1, of: 2))
        }
    }

    @Test("With HRTF on, a source at 90 degrees reaches the far ear 0.5 to 0.9 ms late; panned, at once")
    func interauralTime() throws {
        let hrtf = try Self.ears(outputType: .headphones)
        // Lag of the left (far) ear behind the right one, in frames at 48 kHz.
        let lag = SampleAnalysis.crossCorrelationLag(hrtf.right, hrtf.left, maximumLag: 96)
        let milliseconds = Double(lag) / 48
        #expect(milliseconds >= 0.5 && milliseconds <= 0.9, "ITD \(milliseconds) ms")

        let mirrored = try Self.ears(outputType: .headphones, azimuth: -90)
        let mirroredLag = SampleAnalysis.crossCorrelationLag(mirrored.left, mirrored.right, maximumLag: 96)
        #expect(mirroredLag == lag, "at -90 degrees the right ear is late by as much")

        // Panned between two speakers at +-30 degrees: both ears at once (at 90 the far one is silent).
        let panned = try Self.ears(outputType: .externalSpeakers, azimuth: 20)
        #expect(SampleAnalysis.crossCorrelationLag(panned.right, panned.left, maximumLag: 96) == 0)
    }

    @Test("HRTF shapes the spectrum: the far ear loses highs that panning keeps in proportion")
    func spectrum() throws {
        let hrtf = try Self.ears(outputType: .headphones, azimuth: 60)
        let panned = try Self.ears(outputType: .externalSpeakers, azimuth: 20)
        func tilt(_ samples: [Float]) -> Double {
            let low = SampleAnalysis.level(of: samples, inBand: 200...800, sampleRate: 48_000)
            let high = SampleAnalysis.level(of: samples, inBand: 6_000...12_000, sampleRate: 48_000)
            return 20 * log10(Double(high) / Double(low))
        }
        // Panning scales the whole spectrum: both ears keep the noise's tilt.
        #expect(abs(tilt(panned.left) - tilt(panned.right)) < 1)
        // The head shadows the far ear's highs far more than its lows.
        #expect(tilt(hrtf.right) - tilt(hrtf.left) > 6, "far-ear high-frequency shadow")
    }

    @Test("The output type decides HRTF; isHRTFEnabled sets it; the status says why")
    func outputType() throws {
        try withOfflineEngine { engine in
            #expect(engine.outputType == .externalSpeakers && !engine.isHRTFEnabled && engine.hrtfStatus == .disabled)
            #expect(engine.hrtfDataSet == nil)
            engine.outputType = .headphones
            #expect(engine.isHRTFEnabled && engine.hrtfStatus == .enabled)
            #expect(engine.hrtfDataSet != nil)
            engine.outputType = .builtInSpeakers
            #expect(!engine.isHRTFEnabled && engine.hrtfStatus == .disabled)
            engine.isHRTFEnabled = true
            #expect(engine.outputType == .headphones && engine.isHRTFEnabled)
            engine.isHRTFEnabled = false
            #expect(engine.outputType == .externalSpeakers && !engine.isHRTFEnabled)
            // A loopback output reports no headphones: automatic leaves HRTF off.
            engine.outputType = .automatic
            #expect(!engine.isHRTFEnabled && engine.hrtfStatus == .disabled)
        }
    }

    @Test(
        "A data set for the output's rate can be chosen; another rate's or an unknown name is a typed error that changes nothing"
    )
    func dataSets() throws {
        try withOfflineEngine { engine in
            let names = engine.hrtfDataSets
            #expect(names.contains("default-48000") && names.contains("default-44100"), "Debian's data sets: \(names)")
            engine.outputType = .headphones
            var usable: [String] = []
            for name in names {
                let before = engine.hrtfDataSet
                do {
                    try engine.selectHRTFDataSet(named: name)
                    #expect(engine.hrtfDataSet == name)
                    usable.append(name)
                } catch let error as BackbeatError {
                    #expect(error.code == .unsupportedFormat && error.description.contains(name))
                    #expect(engine.hrtfDataSet == before && engine.isHRTFEnabled, "the set in use stays")
                }
            }
            #expect(
                usable.contains("default-48000") && !usable.contains("default-44100"), "usable at 48 kHz: \(usable)")
            try engine.selectHRTFDataSet(named: "default-48000")
            let error = #expect(throws: BackbeatError.self) { try engine.selectHRTFDataSet(named: "no-such-set") }
            #expect(error?.code == .invalidArgument)
            #expect(error?.description.contains("no-such-set") == true)
            #expect(engine.hrtfDataSet == "default-48000" && engine.isHRTFEnabled)
            try engine.selectHRTFDataSet(named: nil)
            #expect(engine.isHRTFEnabled && engine.hrtfDataSet != nil)
        }
    }

    @Test("Switching HRTF while a loop plays keeps the voice, its time and its sound")
    func switchWhilePlaying() throws {
        try withOfflineEngine { engine in
            let sound = try toneEffect(440, on: engine)
            let voice = sound.play(at: nil, position: Audio3DPoint(x: 1, y: 0, z: -1), looping: .forever)
            _ = try engine.render(frames: 12_000)
            let before = voice.currentTime
            engine.outputType = .headphones
            let out = try engine.render(frames: 12_000)
            #expect(voice.isPlaying)
            let advanced = voice.currentTime - before
            #expect(abs(advanced.seconds - 0.25) < 0.011, "the loop's time moved on by the rendered quarter second")
            #expect(SampleAnalysis.rms(SampleAnalysis.channel(out, 0, of: 2)) > 0.05)
            engine.outputType = .externalSpeakers
            _ = try engine.render(frames: 4_800)
            #expect(voice.isPlaying)
        }
    }
}
