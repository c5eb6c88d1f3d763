import Foundation
import Testing
import Backbeat
@testable import BackbeatLibrary
import BackbeatLibrary
import BackbeatTestFixtures

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
}
