import Backbeat
import BackbeatLibrary
import BackbeatTestFixtures
import Foundation
import Testing

@testable import BackbeatLibrary

@Suite struct LibraryPlaylistReaderTests {
    @Test func m3uSkipsCommentsAndReadsLatin1() {
        let parsed = PlaylistReader.parseM3U(
            PlaylistReader.text(Data([0x61, 0xE9, 0x2E, 0x6F, 0x67, 0x67, 0x0D, 0x0A, 0x23, 0x78, 0x0A])))
        #expect(parsed.entries == ["aé.ogg"])
        let m3u8 = PlaylistReader.parseM3U(
            PlaylistReader.text(Data("\u{FEFF}#EXTM3U\n#PLAYLIST: Mine \n\n  a.ogg  \nb/c.ogg\n".utf8)))
        #expect(m3u8.name == "Mine")
        #expect(m3u8.entries == ["a.ogg", "b/c.ogg"])
    }

    @Test func plsOrdersByNumberAndIgnoresJunk() {
        let parsed = PlaylistReader.parsePLS(
            "[playlist]\nFile3=c\nFileX=bad\nFile1=a\nTitle1=A\nFile2=\nfile2=b\n=\nNumberOfEntries=3")
        #expect(parsed.entries == ["a", "b", "c"])
    }

    @Test func xspfRejectsMalformedAndForeignXML() throws {
        let url = URL(fileURLWithPath: "/x.xspf")
        let good = try PlaylistReader.parseXSPF(
            Data(
                "<playlist><title>T</title><trackList><track><location>a.ogg</location></track></trackList></playlist>"
                    .utf8), url: url)
        #expect(good.name == "T" && good.entries == ["a.ogg"])
        for bad in [
            "<playlist><trackList>", "<html><body/></html>", "",
            "<?xml version=\"1.0\"?><!DOCTYPE p [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><playlist><title>&e;</title></playlist>",
        ] {
            if let parsed = try? PlaylistReader.parseXSPF(Data(bad.utf8), url: url) {
                #expect(parsed.name?.contains("root") != true, "external entity must not be resolved")
            }
        }
        #expect(throws: BackbeatError.self) {
            try PlaylistReader.parseXSPF(Data("<playlist><trackList>".utf8), url: url)
        }
        #expect(throws: BackbeatError.self) { try PlaylistReader.parseXSPF(Data("<html/>".utf8), url: url) }
        #expect(throws: BackbeatError.self) { try PlaylistReader.parseXSPF(Data(), url: url) }
    }

    @Test func hugeAndBinaryPlaylistsAreBounded() throws {
        try withTemporaryDirectory { directory in
            let big = directory.appendingPathComponent("big.m3u")
            try Data(repeating: 0x61, count: PlaylistReader.maximumBytes + 1).write(to: big)
            let error = #expect(throws: BackbeatError.self) { try PlaylistReader.read(big) }
            #expect(error?.code == .invalidPlaylist)
            let binary = directory.appendingPathComponent("bin.m3u8")
            try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 * 7) }).write(to: binary)
            _ = try PlaylistReader.read(binary)  // junk lines, no crash; the scan reports them as missing files
            let many = directory.appendingPathComponent("many.m3u")
            try String(repeating: "x.ogg\n", count: PlaylistReader.maximumEntries + 5).write(
                to: many, atomically: true, encoding: .utf8)
            let parsed = try PlaylistReader.read(many)
            #expect(parsed.entries.count == PlaylistReader.maximumEntries && parsed.truncated)
        }
    }
}
