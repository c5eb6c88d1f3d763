import Backbeat
import BackbeatLibrary
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@Suite struct LoudnessAnalysisTests {
    /// A 997 Hz sine of peak 0.5 in a mono WAV: -3.01 LUFS at full scale, so -9.03 LUFS; true peak -6.02 dBTP.
    @Test func measuresIntegratedLoudnessAndTruePeak() throws {
        try withTemporaryDirectory { directory in
            let writer = try AssetWriter(outputURL: directory.appendingPathComponent("tone.wav"), fileType: .wav)
            writer.metadata = AudioTags(title: "Tone")
            let input = AssetWriterInput(outputSettings: AudioFormat(sampleRate: 48_000, channelCount: 1))
            try writer.add(input)
            try writer.startWriting()
            try input.append(
                TestSignal.sine(frequency: 997, duration: MediaTime(seconds: 2), sampleRate: 48_000, amplitude: 0.5))
            try writer.finish()
            try LibraryFixture.write(
                directory.appendingPathComponent("quiet.ogg"), tags: AudioTags(title: "Quiet"), frequency: 440,
                seconds: 1)

            let library = try MediaLibrary(roots: [directory], index: .inMemory)
            try library.scan()
            #expect(try MediaQuery(library: library).items.allSatisfy { $0.loudness == nil })
            let analysis = LoudnessAnalysis(library: library)
            var progress: [Int] = []
            let report = try analysis.run { completed, total in
                #expect(total == 2)
                progress.append(completed)
            }
            #expect(report.analyzed == 2 && report.failed.isEmpty && !report.wasCancelled)
            #expect(progress == [1, 2])
            #expect(analysis.fractionCompleted == 1)
            let tone = try #require(try MediaQuery(library: library).items.first { $0.title == "Tone" }?.loudness)
            #expect(abs(tone.integratedLUFS - -9.03) < 0.1)
            #expect(abs(tone.truePeakDBTP - -6.02) < 0.1)
            #expect(abs(tone.normalizationGainDB(targetLUFS: -16) - -6.97) < 0.1)
            // Everything measured: a second run has nothing to do.
            #expect(try LoudnessAnalysis(library: library).run().analyzed == 0)
        }
    }

    @Test func cancellingStopsTheWalkAndKeepsWhatWasMeasured() throws {
        try withTemporaryDirectory { directory in
            for i in 0..<3 {
                try LibraryFixture.write(
                    directory.appendingPathComponent("\(i).ogg"), tags: AudioTags(title: "\(i)"),
                    frequency: 300 + Double(i) * 50, seconds: 0.5)
            }
            let library = try MediaLibrary(roots: [directory], index: .inMemory)
            try library.scan()
            let analysis = LoudnessAnalysis(library: library)
            let report = try analysis.run { completed, _ in if completed == 1 { analysis.cancel() } }
            #expect(report.wasCancelled && report.analyzed == 1)
            #expect(try MediaQuery(library: library).items.filter { $0.loudness != nil }.count == 1)
            #expect(try LoudnessAnalysis(library: library).run().analyzed == 2)
        }
    }

    @Test func gainRespectsTheTruePeakCeiling() {
        let quiet = Loudness(integratedLUFS: -30, truePeakDBTP: -4)
        #expect(quiet.normalizationGainDB(targetLUFS: -16, ceilingDBTP: -1) == 3)
        let loud = Loudness(integratedLUFS: -8, truePeakDBTP: 0)
        #expect(loud.normalizationGainDB(targetLUFS: -16) == -8)
    }
}
