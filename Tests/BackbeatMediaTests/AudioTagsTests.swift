import Backbeat
import Foundation
import Testing

@testable import BackbeatMedia

@Suite struct AudioTagsTests {
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<200).map { UInt8($0 & 0xFF) })

    @Test(arguments: [0, 1, 2, 3, 4, 5, 100, 1001])
    func base64RoundTrips(length: Int) {
        let data = Data((0..<length).map { UInt8(($0 * 37 + 11) & 0xFF) })
        let text = Base64.encode(data)
        #expect(text == data.base64EncodedString())
        #expect(Base64.decode(Array(text.utf8)) == data)
    }

    @Test func base64AcceptsWhitespaceAndMissingPadding() {
        #expect(Base64.decode(Array("aGVs\nbG8=".utf8)) == Data("hello".utf8))
        #expect(Base64.decode(Array("aGVsbG8".utf8)) == Data("hello".utf8))
        #expect(Base64.decode(Array("".utf8)) == Data())
    }

    @Test(arguments: [
        "a", "abcde", "ab=c", "ab===", "a===", "!!!!", "aGVsbG8=x", "aGVs\u{0}bG8=", "====", "ab=", "abc==",
    ])
    func base64RejectsMalformedText(_ text: String) {
        #expect(Base64.decode(Array(text.utf8)) == nil)
    }

    @Test func pictureBlockRoundTrips() throws {
        let art = Artwork(
            data: Self.png, mimeType: "image/png", width: 300, height: 200, pictureType: 3, description: "cover")
        let parsed = try PictureBlock.parse(PictureBlock.serialise(art)).get()
        #expect(parsed == art)
    }

    /// Every prefix of a valid block, and blocks whose lengths lie, are rejected with a reason; none crash.
    @Test func pictureBlockRejectsHostileInput() {
        let block = PictureBlock.serialise(Artwork(data: Self.png, mimeType: "image/png", width: 1, height: 1))
        for cut in 0..<block.count {
            if case .success = PictureBlock.parse(block.prefix(cut)) { Issue.record("prefix \(cut) parsed") }
        }
        func patched(_ offset: Int, _ value: UInt32) -> Data {
            var b = block
            withUnsafeBytes(of: value.bigEndian) { b.replaceSubrange(offset..<offset + 4, with: $0) }
            return b
        }
        let mimeEnd = 8 + "image/png".utf8.count
        let dataLengthOffset = mimeEnd + 4 + 16
        let hostile: [(Data, String)] = [
            (patched(4, 0xFFFF_FFFF), "MIME type length"),
            (patched(4, 1000), "ends early"),
            (patched(mimeEnd, 0x7FFF_FFFF), "description length"),
            (patched(dataLengthOffset, 0xFFFF_FFF0), "exceeds"),
            (patched(dataLengthOffset, UInt32(Self.png.count + 1)), "exceeds"),
            (patched(0, 99), "picture type"),
            (patched(dataLengthOffset, 0), "empty"),
        ]
        for (bytes, reason) in hostile {
            switch PictureBlock.parse(bytes) {
            case .success: Issue.record("hostile block parsed (\(reason))")
            case .failure(let error): #expect(error.reason.contains(reason), "\(error.reason)")
            }
        }
        // Random bytes: never a crash, never a picture with data beyond the input.
        var seed: UInt64 = 42
        for _ in 0..<2000 {
            var bytes = [UInt8]()
            let n = Int(seed % 97)
            for _ in 0..<n {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1
                bytes.append(UInt8(seed >> 56))
            }
            seed = seed &* 6_364_136_223_846_793_005 &+ 1
            if case .success(let art) = PictureBlock.parse(Data(bytes)) { #expect(art.data.count < n) }
        }
    }

    @Test func vorbisCommentsMapToTags() throws {
        let art = Artwork(data: Self.png, mimeType: "image/png", width: 16, height: 16)
        let picture = Base64.encode(PictureBlock.serialise(art))
        let comments = [
            "title=  Song  ", "ARTIST=Band", "Artist=Second", "ALBUM=Record", "ALBUMARTIST=Various", "GENRE=Chiptune",
            "COMPOSER=Writer", "TRACKNUMBER=03/12", "DISCNUMBER=2", "DATE=1994-05-02", "COMPILATION=1",
            "METADATA_BLOCK_PICTURE=\(picture)", "GENRE=Other", "NOEQUALS", "EMPTY=",
        ].map { Array($0.utf8) }
        let reading = VorbisComments.read(comments)
        let tags = reading.tags
        #expect(reading.artworkErrors.isEmpty)
        #expect(
            tags
                == AudioTags(
                    title: "Song", artist: "Band", albumTitle: "Record", albumArtist: "Various", genre: "Chiptune",
                    composer: "Writer", trackNumber: 3, discNumber: 2, date: "1994-05-02", isCompilation: true,
                    artwork: [art]))
    }

    @Test func missingAndEmptyTagsAreNil() {
        let tags = VorbisComments.read([
            Array("TITLE=".utf8), Array("TRACKNUMBER=x".utf8), Array("COMPILATION=maybe".utf8),
        ]).tags
        #expect(tags.title == nil)
        #expect(tags.trackNumber == nil)
        #expect(tags.isCompilation == nil)
        #expect(tags.isEmpty)
    }

    @Test func corruptPictureIsReportedNotFatal() {
        let reading = VorbisComments.read([Array("TITLE=ok".utf8), Array("METADATA_BLOCK_PICTURE=%%%%".utf8)])
        #expect(reading.tags.title == "ok")
        #expect(reading.tags.artwork.isEmpty)
        #expect(reading.artworkErrors == ["METADATA_BLOCK_PICTURE is not valid base64"])
    }

    @Test func tagsWriteBackToComments() {
        let tags = AudioTags(title: "T", trackNumber: 7, isCompilation: false)
        let comments = VorbisComments.comments(for: tags)
        #expect(comments.map { "\($0.key)=\($0.value)" } == ["TITLE=T", "TRACKNUMBER=7", "COMPILATION=0"])
        #expect(VorbisComments.read(comments.map { Array("\($0.key)=\($0.value)".utf8) }).tags == tags)
    }
}
