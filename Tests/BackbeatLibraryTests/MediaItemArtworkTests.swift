import Backbeat
import BackbeatLibrary
import BackbeatTestFixtures
import CStb
import Foundation
import Testing

@testable import BackbeatLibrary

@Suite struct MediaItemArtworkTests {
    @Test func embeddedArtworkIsScaledToTheRequestedSize() throws {
        try withFixtureLibrary { library, _, _ in
            let item = try MediaQuery.songs(in: library).items.first { $0.title == "Come Together" }!
            let artwork = try #require(item.artwork)
            #expect(artwork.bounds == .init(width: 64, height: 32))
            let image = try #require(try artwork.image(at: .init(width: 16, height: 8)))
            #expect(image.size == .init(width: 16, height: 8))
            #expect(image.rgba.count == 16 * 8 * 4)
            let p = image.pixel(x: 7, y: 3)
            #expect(p.r > 250 && p.g < 5 && p.b < 5 && p.a == 255)
            // Encoded and decoded again, it keeps its size.
            let png = try image.pngData()
            #expect(ImageCodec.size(of: png) == .init(width: 16, height: 8))
            let big = try #require(try artwork.image(at: .init(width: 200, height: 100)))
            #expect(big.size == .init(width: 200, height: 100))
        }
    }

    @Test func coverImageBesideTheFileIsUsed() throws {
        try withFixtureLibrary { library, _, _ in
            let item = try MediaQuery.songs(in: library).items.first { $0.title == "An Apple" }!
            let artwork = try #require(item.artwork)
            #expect(artwork.bounds == .init(width: 40, height: 40))
            let image = try #require(try artwork.image(at: .init(width: 10, height: 10)))
            let p = image.pixel(x: 5, y: 5)
            #expect(p.b > 250 && p.r < 5)
        }
    }

    @Test func artworkIsNilWithoutAPicture() throws {
        try withFixtureLibrary { library, _, _ in
            let item = try MediaQuery.songs(in: library).items.first { $0.title == "Something" }!
            #expect(item.artwork == nil)
            #expect(item.value(forProperty: .artwork) == nil)
        }
    }

    @Test func badSizesAndBadImagesAreTypedErrors() throws {
        try withFixtureLibrary { library, root, _ in
            let artwork = try #require(
                try MediaQuery.songs(in: library).items.first { $0.title == "An Apple" }!.artwork)
            #expect(throws: BackbeatError.self) { try artwork.image(at: .init(width: 0, height: 10)) }
            #expect(throws: BackbeatError.self) { try artwork.image(at: .init(width: 10, height: 100_000)) }
            // The cover is replaced by garbage after the scan.
            try Data("not a picture".utf8).write(to: root.appendingPathComponent("adele/cover.png"))
            let error = #expect(throws: BackbeatError.self) { try artwork.image(at: .init(width: 10, height: 10)) }
            #expect(error?.code == .invalidImage)
            // And removed: no artwork, no error.
            try FileManager.default.removeItem(at: root.appendingPathComponent("adele/cover.png"))
            #expect(try artwork.image(at: .init(width: 10, height: 10)) == nil)
        }
    }

    /// What stb itself makes of `data`: proves a test picture is one stb would decode.
    private func stbSize(_ data: Data) -> (Int32, Int32)? {
        data.withUnsafeBytes { raw in
            var w: Int32 = 0
            var h: Int32 = 0
            var comp: Int32 = 0
            let base = raw.bindMemory(to: UInt8.self).baseAddress!
            guard let pixels = stbi_load_from_memory(base, Int32(raw.count), &w, &h, &comp, 4) else { return nil }
            stbi_image_free(pixels)
            return (w, h)
        }
    }

    @Test func onlyJPEGAndPNGAreDecodedByTheirMagicBytes() throws {
        try withTemporaryDirectory { dir in
            for (name, data) in [("cover.gif", TestImages.gif), ("cover.bmp", TestImages.bmp)] {
                // stb reads these pictures: only the magic-byte check keeps them out.
                let stb = try #require(stbSize(data), "\(name) is a picture stb decodes")
                #expect(stb == (2, 2))
                #expect(ImageCodec.size(of: data) == nil)
                let url = dir.appendingPathComponent(name)
                try data.write(to: url)
                #expect(ImageCodec.size(ofFile: url.path) == nil)
                let artwork = MediaItemArtwork(source: .imageFile(url.path), bounds: .init(width: 2, height: 2))
                let error = #expect(throws: BackbeatError.self) { try artwork.image(at: .init(width: 2, height: 2)) }
                #expect(error?.code == .invalidImage)
                #expect(error?.description.contains("not a JPEG or PNG") == true)
                #expect(error?.description.contains("\n") == false)
            }
        }
    }

    @Test func aPictureOverTheLimitIsRefusedBeforeDecoding() throws {
        // The writer is right: a small picture from it decodes to black.
        // Grey, grey + alpha, RGB and RGBA, at the native size and scaled, come out as RGBA.
        for colorType: UInt8 in [0, 4, 2, 6] {
            let small = TestImages.blackPNG(width: 64, height: 48, colorType: colorType)
            let alpha: UInt8 = colorType == 4 || colorType == 6 ? 0 : 255
            for size in [MediaItemArtwork.Size(width: 64, height: 48), .init(width: 10, height: 7)] {
                let decoded = try ImageCodec.decode(small, url: nil, scaledTo: size)
                #expect(decoded.size == size)
                #expect(decoded.rgba.count == size.width * size.height * 4)
                #expect(decoded.pixel(x: size.width - 1, y: size.height - 1) == (0, 0, 0, alpha))
                #expect(
                    decoded.rgba.enumerated().allSatisfy { $0.offset % 4 == 3 ? $0.element == alpha : $0.element == 0 })
            }
        }

        // 16,384 × 16,384: within the side limit, 268 megapixels (1 GiB as RGBA).
        let bomb = TestImages.blackPNG(width: 16_384, height: 16_384, bitDepth: 1)
        #expect(bomb.count < 1_000_000)
        #expect(ImageCodec.size(of: bomb) == .init(width: 16_384, height: 16_384))
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("cover.png")
            try bomb.write(to: url)
            let artwork = MediaItemArtwork(
                source: .imageFile(url.path), bounds: .init(width: 16_384, height: 16_384))
            let error = #expect(throws: BackbeatError.self) { try artwork.image(at: .init(width: 64, height: 64)) }
            #expect(error?.code == .invalidImage)
            #expect(error?.description.contains("over the limit") == true)
        }
        // The limit is on the pixel count: 4096 × 4096 is the largest square, and one more row is refused.
        #expect(ImageCodec.isDecodable(.init(width: 4096, height: 4096)))
        #expect(!ImageCodec.isDecodable(.init(width: 4096, height: 4097)))
        #expect(ImageCodec.isDecodable(.init(width: 16_384, height: 1024)))
        #expect(!ImageCodec.isDecodable(.init(width: 16_385, height: 1)))
        let oneRowMore = TestImages.blackPNG(width: 4096, height: 4097, bitDepth: 1)
        let error = #expect(throws: BackbeatError.self) {
            try ImageCodec.decode(oneRowMore, url: nil, scaledTo: .init(width: 1, height: 1))
        }
        #expect(error?.description.contains("over the limit") == true)
    }

    @Test func theScannerIgnoresCoversThatAreNotJPEGOrPNGOrOverTheLimit() throws {
        for cover in [TestImages.gif, TestImages.blackPNG(width: 16_384, height: 16_384, bitDepth: 1)] {
            try withTemporaryDirectory { directory in
                let root = directory.appendingPathComponent("music")
                try FileManager.default.createDirectory(
                    at: root.appendingPathComponent("lists"), withIntermediateDirectories: true)
                try LibraryFixture.make(in: root)
                try cover.write(to: root.appendingPathComponent("adele/cover.png"))
                let library = try MediaLibrary(roots: [root], index: .inMemory)
                try library.scan()
                let item = try #require(try MediaQuery.songs(in: library).items.first { $0.title == "An Apple" })
                #expect(item.artwork == nil)
            }
        }
    }
}
