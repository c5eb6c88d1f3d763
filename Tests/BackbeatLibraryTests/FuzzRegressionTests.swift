import Backbeat
import BackbeatLibrary
import Foundation
import Testing

@testable import BackbeatLibrary

/// Inputs the fuzzers (`make fuzz`) found crashing, kept so they never crash again.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// FuzzPlaylist: an element name that is not valid UTF-8 made FoundationXML trap.
    @Test("XSPF with invalid UTF-8 in a name is a typed error, not a trap")
    func xspfInvalidUTF8Name() throws {
        let url = URL(fileURLWithPath: "/fuzz/crash.xspf")
        let crash = Data([0x3C, 0xE1, 0xFE, 0x3E, 0x0A])  // "<\u{E1}\u{FE}>\n"
        let error = try #require(throws: BackbeatError.self) { try PlaylistReader.parseXSPF(crash, url: url) }
        #expect(error.code == .invalidPlaylist)
        let inPlaylist =
            Data("<playlist><trackList><track><location>a</location></track><t".utf8) + Data([0x85, 0x9E])
            + Data("/></trackList></playlist>".utf8)
        #expect(throws: BackbeatError.self) { try PlaylistReader.parseXSPF(inPlaylist, url: url) }
        // A malformed declaration does not make libxml2 transcode: still UTF-8, still refused.
        let malformed =
            Data("<?xml version=\"1.0\" encoding<=Character2UTnF-8\"?>\n<playl".utf8) + Data([0xFF, 0xFF])
            + Data("ist versio?xn=\"0\0\" m".utf8)
        #expect(throws: BackbeatError.self) { try PlaylistReader.parseXSPF(malformed, url: url) }
        let unknown = Data("<?xml version='1.0' encoding='x-unknown'?><".utf8) + Data([0xE1, 0xFE]) + Data("/>".utf8)
        #expect(throws: BackbeatError.self) { try PlaylistReader.parseXSPF(unknown, url: url) }
    }

    /// FuzzPlaylist: a processing instruction with no data made FoundationXML read a null string.
    @Test("XSPF with a data-less processing instruction is a typed error, not a crash")
    func xspfDataLessProcessingInstruction() throws {
        let url = URL(fileURLWithPath: "/fuzz/crash.xspf")
        for text in ["<?xmreser?>\n8,Artist - Titlr", "<playlist><?pi  ?></playlist>", "<playlist><?x?>"] {
            let error = try #require(throws: BackbeatError.self) {
                try PlaylistReader.parseXSPF(Data(text.utf8), url: url)
            }
            #expect(error.code == .invalidPlaylist)
        }
        let withData =
            "<?xml version=\"1.0\"?><?xml-stylesheet href=\"s.xsl\"?><playlist><trackList><track><location>a.ogg</location></track></trackList></playlist>"
        #expect(try PlaylistReader.parseXSPF(Data(withData.utf8), url: url).entries == ["a.ogg"])
    }

    /// FuzzPlaylist: a declared ISO-8859-1 document with a malformed version
    /// reached FoundationXML untranscoded, and 0xED bytes in an element name
    /// crashed its start-element callback. Documents are transcoded before
    /// parsing now, so the parser only ever sees valid UTF-8.
    @Test("XSPF declaring ISO-8859-1 with a malformed declaration is transcoded, not a crash")
    func xspfDeclaredLatin1WithMalformedDeclaration() throws {
        let url = URL(fileURLWithPath: "/fuzz/crash.xspf")
        let crash = Data([
            0x3C, 0x3F, 0x78, 0x6D, 0x6C, 0x20, 0x76, 0x65, 0x72, 0x73, 0x69, 0x6F, 0x6E, 0x3D, 0x22, 0x31,
            0x2E, 0x2E, 0x22, 0x20, 0x65, 0x6E, 0x63, 0x6F, 0x64, 0x69, 0x6E, 0x67, 0x3D, 0x22, 0x49, 0x53,
            0x4F, 0x2D, 0x38, 0x38, 0x35, 0x39, 0x2D, 0x31, 0x22, 0x3F, 0x3E, 0x0A, 0x3C, 0x70, 0x6C, 0x61,
            0x79, 0x6C, 0x69, 0x73, 0x74, 0x20, 0x76, 0x65, 0x72, 0x73, 0x69, 0x6F, 0x6E, 0x3D, 0x22, 0x31,
            0x22, 0x20, 0x78, 0x6D, 0x6C, 0x6E, 0x73, 0x3D, 0x22, 0x68, 0x74, 0x74, 0x70, 0x3A, 0x2F, 0x2F,
            0x78, 0x73, 0x70, 0x66, 0x2E, 0x6F, 0x72, 0x67, 0x2F, 0x6E, 0x73, 0x2F, 0x30, 0x2F, 0x27, 0x3E,
            0x3C, 0x74, 0x72, 0x61, 0x63, 0x6B, 0x4C, 0x69, 0x73, 0x74, 0x3E, 0x3C, 0x74, 0x72, 0x61, 0x63,
            0x6B, 0x3E, 0x3C, 0x6C, 0x6F, 0x63, 0x61, 0x74, 0x69, 0x6F, 0x6E, 0x3E, 0x43, 0x61, 0x66, 0xE9,
            0x2E, 0x6F, 0x67, 0x67, 0x3C, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED,
            0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED,
            0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0x43, 0x68, 0x21, 0x72, 0x61, 0x63, 0xED, 0xED, 0xED, 0xED,
            0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0x3E, 0x43, 0x61,
            0x66, 0xE9, 0x2E, 0x6F, 0x67, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED,
            0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0xED, 0x2F, 0x6C, 0x6F,
            0x63, 0x61, 0x74, 0x69, 0x6F, 0x6E, 0x3E, 0x3C, 0x2F, 0x74, 0x72, 0x61, 0x63, 0x6B, 0x3E, 0x3C,
            0x2F, 0x74, 0x72, 0x61, 0x63, 0x6B, 0x4C, 0x69, 0x73, 0x74, 0x3E, 0x3C, 0x2F, 0x70, 0x6C, 0x61,
            0x79, 0x6C, 0x69, 0x73, 0x74, 0x3E, 0x0A,
        ])
        do {
            let parsed = try PlaylistReader.parseXSPF(crash, url: url)
            #expect(parsed.entries.allSatisfy { String(validating: Data($0.utf8), as: UTF8.self) != nil })
        } catch let error as BackbeatError {
            #expect(error.code == .invalidPlaylist)
        }
        let cp1252 =
            Data("<?xml version=\"1.0\" encoding=\"windows-1252\"?><playlist><title>".utf8) + Data([0x80, 0x9C, 0xE9])
            + Data("</title></playlist>".utf8)
        #expect(try PlaylistReader.parseXSPF(cp1252, url: url).name == "€œé")
        let latin9 =
            Data("<?xml version='1.0' encoding='ISO-8859-15'?><playlist><title>".utf8) + Data([0xA4, 0xBD])
            + Data("</title></playlist>".utf8)
        #expect(try PlaylistReader.parseXSPF(latin9, url: url).name == "€œ")
    }

    /// FuzzPlaylist: UTF-16 with no byte-order mark passed as valid UTF-8
    /// (NULs are), libxml2 read it as UTF-16 anyway, and its data-less
    /// processing instruction crashed FoundationXML. XML has no U+0000: refused.
    @Test("XSPF holding NUL (UTF-16 without a byte-order mark) is a typed error, not a crash")
    func xspfWithNUL() throws {
        let url = URL(fileURLWithPath: "/fuzz/crash.xspf")
        // "<?x?>" in UTF-16LE, no BOM.
        let crash = Data([0x3C, 0x00, 0x3F, 0x00, 0x78, 0x00, 0x3F, 0x00, 0x3E, 0x00, 0x00])
        let error = try #require(throws: BackbeatError.self) { try PlaylistReader.parseXSPF(crash, url: url) }
        #expect(error.code == .invalidPlaylist)
        var withBOM = Data([0xFF, 0xFE])
        for unit in "<playlist><title>a\u{0}b</title></playlist>".utf16 {
            withBOM.append(UInt8(unit & 0xFF))
            withBOM.append(UInt8(unit >> 8))
        }
        #expect(throws: BackbeatError.self) { try PlaylistReader.parseXSPF(withBOM, url: url) }
    }

    @Test("XSPF in a declared 8-bit encoding or in UTF-16 still parses")
    func xspfOtherEncodings() throws {
        let url = URL(fileURLWithPath: "/fuzz/ok.xspf")
        let latin1 =
            Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><playlist><trackList><track><location>Caf".utf8)
            + Data([0xE9]) + Data(".ogg</location></track></trackList></playlist>".utf8)
        #expect(try PlaylistReader.parseXSPF(latin1, url: url).entries == ["Café.ogg"])
        var utf16 = Data([0xFF, 0xFE])
        for unit in "<?xml version=\"1.0\" encoding=\"UTF-16\"?><playlist><title>Ünï</title></playlist>".utf16 {
            utf16.append(UInt8(unit & 0xFF))
            utf16.append(UInt8(unit >> 8))
        }
        #expect(try PlaylistReader.parseXSPF(utf16, url: url).name == "Ünï")
    }
}
