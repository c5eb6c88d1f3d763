import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatMedia

/// What a file's header claims is bounded before Backbeat converts or
/// allocates with it: crafted files give typed errors, never a trap.
@Suite struct DecoderBoundsTests {
    static func writeOgg(_ url: URL, seconds: Double = 0.2) async throws {
        try await Media.write(Fixtures.music(seconds: seconds, sampleRate: 44_100), to: url, as: .oggVorbis)
    }

    /// The Vorbis identification header: packet type 1, "vorbis", version 0, channels, rate (little-endian).
    static func identification(channels: UInt8, rate: UInt32) -> [UInt8] {
        [0x01] + Array("vorbis".utf8) + [0, 0, 0, 0, channels]
            + [UInt8(rate & 0xFF), UInt8(rate >> 8 & 0xFF), UInt8(rate >> 16 & 0xFF), UInt8(rate >> 24)]
    }

    @Test func aSampleRateOf2To31IsATypedErrorNotATrap() async throws {
        try await withTemporaryDirectoryAsync { dir in
            let url = dir.appendingPathComponent("rate.ogg")
            try await Self.writeOgg(url)
            try OggPatch.replace(
                Self.identification(channels: 2, rate: 44_100), with: Self.identification(channels: 2, rate: 1 << 31),
                in: url)
            await #expect { _ = try await AudioAsset(url: url).load(.duration) } throws: {
                ($0 as? BackbeatError)?.code == .corruptFile
            }
            #expect { _ = try AudioDecoders.open(url) } throws: { ($0 as? BackbeatError)?.code == .corruptFile }
            let engine = try AudioEngine(output: .offline())
            defer { engine.shutdown() }
            await #expect(throws: BackbeatError.self) {
                try await SoundEffect(contentsOf: url, engine: engine).preload()
            }
        }
    }

    /// A frame count a file of its size cannot hold (a last page claiming a
    /// granule position near 2^62) is refused. (The libvorbisfile here reads
    /// the count of a file patched that way from its audio, so the bound is
    /// checked on the count itself.)
    @Test func aFrameCountTheFileCannotHoldIsATypedError() async throws {
        try await withTemporaryDirectoryAsync { dir in
            let url = dir.appendingPathComponent("long.ogg")
            try await Self.writeOgg(url)
            let size = Int64(try Data(contentsOf: url).count)
            #expect(throws: Never.self) {
                try DecoderLimits.check(
                    sampleRate: 44_100, channels: 2, frames: 8_832, size: size, url: url, operation: "test")
            }
            let error = try #require(throws: BackbeatError.self) {
                try DecoderLimits.check(
                    sampleRate: 44_100, channels: 2, frames: 1 << 62, size: size, url: url, operation: "ov_pcm_total")
            }
            #expect(error.code == .corruptFile)
            #expect(throws: BackbeatError.self) {
                try DecoderLimits.check(
                    sampleRate: 44_100, channels: 0, frames: 10, size: size, url: url, operation: "ov_info")
            }
        }
    }

    @Test func timeConversionsSaturate() {
        #expect(MediaTime(frames: 48_000, sampleRate: 1 << 40).seconds < 1)
        #expect(MediaTime(frames: 48_000, sampleRate: 0).seconds == 48_000)
        #expect(MediaTime(seconds: 1).frames(atSampleRate: Int.max) > 0)
    }

    /// The cache's budget is checked from the frame count before decoding: a
    /// long file used as an effect fails at once, with nothing allocated for it.
    @Test func aSoundOverTheBudgetFailsBeforeItIsDecoded() async throws {
        try await withTemporaryDirectoryAsync { dir in
            let url = dir.appendingPathComponent("long.ogg")
            try await Self.writeOgg(url, seconds: 3)
            let engine = try AudioEngine(output: .offline())
            defer { engine.shutdown() }
            engine.effectCacheBudget = 100_000  // 3 s of stereo float is over a megabyte
            let error = await #expect(throws: BackbeatError.self) {
                try await SoundEffect(contentsOf: url, engine: engine).preload()
            }
            #expect(error?.code == .cacheBudgetExceeded)
            #expect(
                error?.reason?.contains("frames") == true,
                "refused from the count, before decoding: \(String(describing: error))")
        }
    }
}
