import Backbeat
import BackbeatTestFixtures
import Foundation
import FuzzSupport
import Testing

/// The Ogg page CRC repair the fuzzers' custom mutator applies after each
/// mutation (and the tests use to patch hostile files): a page it repairs
/// decodes; the same change without the repair is refused by libogg.
@Suite struct OggPagesTests {
    static func taggedOgg(in directory: URL) throws -> (url: URL, bytes: [UInt8]) {
        let url = directory.appendingPathComponent("tagged.ogg")
        try LibraryFixture.write(url, tags: AudioTags(title: "Seed QQQ", artist: "Tester"), frequency: 440)
        return (url, [UInt8](try Data(contentsOf: url)))
    }

    static func flip(_ old: String, to new: String, in bytes: inout [UInt8]) throws {
        let old = Array(old.utf8)
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: old) })
        bytes.replaceSubrange(at..<(at + old.count), with: Array(new.utf8))
    }

    @Test func recomputedCRCsMatchTheWritersOwn() throws {
        try withTemporaryDirectory { directory in
            let (_, original) = try Self.taggedOgg(in: directory)
            var zeroed = original
            var pages = 0
            var offset = 0
            while let length = zeroed.withUnsafeBufferPointer({ OggPages.pageLength(at: offset, in: $0) }) {
                for i in 22..<26 { zeroed[offset + i] = 0 }
                pages += 1
                offset += length
            }
            #expect(offset == original.count)
            #expect(pages >= 3)
            #expect(zeroed != original)
            #expect(OggPages.repairAll(in: &zeroed) == pages)
            #expect(zeroed == original)
        }
    }

    @Test func aRepairedPageDecodesAndAnUnrepairedFlipIsRefused() async throws {
        try await withTemporaryDirectoryAsync { directory in
            let (url, original) = try Self.taggedOgg(in: directory)
            let before = try await AudioAsset(url: url).load(.tags)
            #expect(before.title == "Seed QQQ")

            var flipped = original
            try Self.flip("Seed QQQ", to: "Seed QRQ", in: &flipped)
            let broken = directory.appendingPathComponent("broken.ogg")
            try Data(flipped).write(to: broken)
            await #expect(throws: BackbeatError.self) { _ = try await AudioAsset(url: broken).load(.tags) }

            #expect(OggPages.repairAll(in: &flipped) >= 3)
            let repaired = directory.appendingPathComponent("repaired.ogg")
            try Data(flipped).write(to: repaired)
            let (tags, duration) = try await AudioAsset(url: repaired).load(.tags, .duration)
            #expect(tags.title == "Seed QRQ")
            #expect(tags.artist == "Tester")
            #expect(duration == (try await AudioAsset(url: url).load(.duration)))
        }
    }

    @Test func truncatedAndForeignBytesAreLeftAlone() {
        // The segment table claims 3 segments and has 2.
        var bytes = Array("OggS".utf8) + [UInt8](repeating: 0, count: 22) + [3, 10, 10]
        let copy = bytes
        #expect(OggPages.repairAll(in: &bytes) == 0)
        #expect(bytes == copy)
        var noise: [UInt8] = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let noiseCopy = noise
        #expect(OggPages.repairAll(in: &noise) == 0)
        #expect(noise == noiseCopy)
    }
}
