import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatMedia

@Suite struct VorbisDecoderTests {
    /// Backbeat's 16-bit decode and oggdec's are both libvorbis's ov_read, so
    /// they must agree exactly, sample for sample.
    @Test func int16DecodeMatchesOggdecExactly() throws {
        try withTemporaryDirectory { dir in
            let ogg = try Fixtures.oggencFile(in: dir)
            let reference = dir.appendingPathComponent("oggdec.wav")
            let dec = try runTool("oggdec", ["-Q", "-b", "16", "-e", "0", "-s", "1", "-o", reference.path, ogg.path])
            #expect(dec.status == 0, "oggdec: \(dec.stderr)")

            let decoder = try AudioDecoders.open(ogg)
            #expect(decoder is VorbisDecoder)
            #expect(decoder.sampleRate == 44_100)
            #expect(decoder.channelCount == 2)
            var ours: [Int16] = []
            var chunk: [Int16] = []
            while try decoder.read(frames: 3000, into: &chunk) > 0 { ours += chunk }

            let wav = try AudioDecoders.open(reference)
            #expect(wav.nativeCommonFormat == .int16)
            var theirs: [Int16] = []
            while try wav.read(frames: 8192, into: &chunk) > 0 { theirs += chunk }

            #expect(ours.count == Int(decoder.frameCount) * 2)
            #expect(ours.count == theirs.count)
            #expect(ours == theirs)
            #expect(SampleAnalysis.peak(ours.map { Float($0) / 32768 }) > 0.2)
        }
    }

    @Test func floatDecodeAgreesWithInt16AndSeeksSampleAccurately() throws {
        try withTemporaryDirectory { dir in
            let ogg = try Fixtures.oggencFile(in: dir, seconds: 2)
            let decoder = try AudioDecoders.open(ogg)
            var ints: [Int16] = []
            _ = try decoder.read(frames: 20_000, into: &ints)
            try decoder.seek(toFrame: 0)
            var floats: [Float] = []
            _ = try decoder.read(frames: 20_000, into: &floats)
            #expect(floats.count == ints.count)
            let worst = zip(floats, ints).map { abs($0 * 32768 - Float($1)) }.max() ?? 99
            #expect(worst <= 1)

            try decoder.seek(toFrame: 12_345)
            #expect(decoder.position == 12_345)
            var after: [Float] = []
            _ = try decoder.read(frames: 100, into: &after)
            #expect(after == Array(floats[(12_345 * 2)..<(12_445 * 2)]))
        }
    }
}
