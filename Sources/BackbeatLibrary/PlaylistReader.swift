import BackbeatSupport
import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Parses M3U/M3U8, PLS and XSPF playlists into a name and a list of entry
/// locations, without resolving them. Hostile input is bounded: files over
/// 8 MiB are refused, at most 100,000 entries are read, XML entities are not
/// resolved, and malformed lines are ignored.
enum PlaylistReader {
    static let maximumBytes = 8 << 20
    static let maximumEntries = 100_000

    struct Parsed: Equatable {
        var name: String?
        var entries: [String] = []
        var truncated = false
    }

    static func read(_ url: URL) throws -> Parsed {
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            if let size = attributes[.size] as? Int, size > maximumBytes {
                throw BackbeatError(
                    .invalidPlaylist, operation: "read playlist", url: url,
                    reason: "\(size) bytes is more than the \(maximumBytes >> 20) MiB limit")
            }
            data = try Data(contentsOf: url)
        } catch let error as BackbeatError {
            throw error
        } catch {
            throw BackbeatError(
                .unreadableFile, operation: "read playlist", url: url, reason: error.localizedDescription)
        }
        switch url.pathExtension.lowercased() {
        case "pls": return parsePLS(text(data))
        case "xspf": return try parseXSPF(data, url: url)
        default: return parseM3U(text(data))
        }
    }

    /// UTF-8 (with or without BOM), else Latin-1, as old `.m3u` files are.
    static func text(_ data: Data) -> String {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if let utf8 = String(validating: bytes, as: UTF8.self) { return utf8 }
        return String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
    }

    static func parseM3U(_ text: String) -> Parsed {
        var parsed = Parsed()
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                if line.hasPrefix("#PLAYLIST:") {
                    parsed.name = String(line.dropFirst(10)).trimmingCharacters(in: .whitespaces)
                }
                continue
            }
            guard parsed.entries.count < maximumEntries else {
                parsed.truncated = true
                break
            }
            parsed.entries.append(line)
        }
        return parsed
    }

    static func parsePLS(_ text: String) -> Parsed {
        var parsed = Parsed()
        var numbered: [(Int, String)] = []
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            guard line.lowercased().hasPrefix("file"), let equals = line.firstIndex(of: "=") else { continue }
            guard let number = Int(line[line.index(line.startIndex, offsetBy: 4)..<equals]) else { continue }
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty else { continue }
            guard numbered.count < maximumEntries else {
                parsed.truncated = true
                break
            }
            numbered.append((number, value))
        }
        parsed.entries = numbered.sorted { $0.0 < $1.0 }.map(\.1)
        return parsed
    }

    static func parseXSPF(_ data: Data, url: URL) throws -> Parsed {
        // FoundationXML traps on a name that is not valid UTF-8, and libxml2
        // passes bytes through untranscoded in more cases than one can list (a
        // declared 8-bit encoding with a malformed declaration did it). So the
        // parser is only ever given UTF-8 that is valid: UTF-16 and declared
        // 8-bit documents are transcoded here, anything else must be UTF-8.
        guard let data = utf8Document(data) else {
            throw BackbeatError(
                .invalidPlaylist, operation: "parse XSPF", url: url,
                reason: "not valid UTF-8 (nor UTF-16 or a declared 8-bit encoding)")
        }
        // FoundationXML also crashes on a processing instruction with no data
        // (`<?name?>`); XSPF has no use for one, so such a document is refused.
        if let target = dataLessProcessingInstruction(data) {
            throw BackbeatError(
                .invalidPlaylist, operation: "parse XSPF", url: url,
                reason: "processing instruction <?\(target)?> has no data")
        }
        let delegate = XSPFDelegate()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = delegate
        let parsedOK = parser.parse()
        guard parsedOK, !delegate.sawForeignRoot, delegate.sawRoot, delegate.isBalanced else {
            let reason =
                delegate.sawForeignRoot
                ? "root element is not <playlist>"
                : !parsedOK
                    ? "malformed XML at line \(parser.lineNumber): \(parser.parserError?.localizedDescription ?? "parse error")"
                    : !delegate.sawRoot ? "no <playlist> element" : "document ends inside an element"
            throw BackbeatError(.invalidPlaylist, operation: "parse XSPF", url: url, reason: reason)
        }
        return delegate.parsed
    }
}

extension PlaylistReader {
    /// 8-bit encodings libxml2 transcodes every byte of into valid UTF-8.
    private static let singleByteEncodings: Set<String> = [
        "iso-8859-1", "latin1", "iso-latin-1", "iso-8859-15", "windows-1252", "cp1252",
    ]

    /// The target of the first `<?target?>` with nothing but spaces after its
    /// target, anywhere in `data` (comments and CDATA included), or nil.
    static func dataLessProcessingInstruction(_ data: Data) -> String? {
        let bytes = [UInt8](data)
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        var i = 0
        while i + 1 < bytes.count {
            defer { i += 1 }
            guard bytes[i] == UInt8(ascii: "<"), bytes[i + 1] == UInt8(ascii: "?") else { continue }
            var j = i + 2
            while j < bytes.count, !isSpace(bytes[j]),
                !(bytes[j] == UInt8(ascii: "?") && j + 1 < bytes.count && bytes[j + 1] == UInt8(ascii: ">"))
            { j += 1 }
            let target = bytes[(i + 2)..<j]
            while j < bytes.count, isSpace(bytes[j]) { j += 1 }
            if j + 1 < bytes.count, bytes[j] == UInt8(ascii: "?"), bytes[j + 1] == UInt8(ascii: ">") {
                return String(decoding: target.prefix(64), as: UTF8.self)
            }
        }
        return nil
    }

    /// The document as valid UTF-8 with a UTF-8 declaration, or nil: UTF-16
    /// (by its byte-order mark) and the declared 8-bit encodings are decoded
    /// here; anything else must already be valid UTF-8. No document may hold
    /// U+0000, which XML forbids.
    static func utf8Document(_ data: Data) -> Data? {
        var text: String?
        if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) {
            text = String(data: data, encoding: .utf16)
        } else if let encoding = declaredSingleByteEncoding(data) {
            text = decodeSingleByte(data, encoding)
        } else {
            // XML has no U+0000; a NUL also means UTF-16 without the byte-order
            // mark XML requires, which libxml2 would read past these checks.
            return data.contains(0) || String(validating: data, as: UTF8.self) == nil ? nil : data
        }
        guard var text, !text.unicodeScalars.contains("\u{0}") else { return nil }
        // The declaration named the old encoding: replace it.
        if text.hasPrefix("<?xml"), let end = text.range(of: "?>") {
            text.removeSubrange(text.startIndex..<end.upperBound)
        }
        return Data(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>" + text).utf8)
    }

    /// ISO-8859-1 and -15 and Windows-1252, byte by byte.
    private static func decodeSingleByte(_ data: Data, _ encoding: String) -> String {
        let latin9: [UInt8: Character] = [
            0xA4: "€", 0xA6: "Š", 0xA8: "š", 0xB4: "Ž", 0xB8: "ž", 0xBC: "Œ", 0xBD: "œ", 0xBE: "Ÿ",
        ]
        let windows: [Character] = Array("€\u{81}‚ƒ„…†‡ˆ‰Š‹Œ\u{8D}Ž\u{8F}\u{90}‘’“”•–—˜™š›œ\u{9D}žŸ")
        var text = ""
        text.reserveCapacity(data.count)
        for byte in data {
            if encoding == "iso-8859-15", let c = latin9[byte] {
                text.append(c)
            } else if encoding == "windows-1252" || encoding == "cp1252", (0x80...0x9F).contains(byte) {
                text.append(windows[Int(byte) - 0x80])
            } else {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return text
    }

    /// The 8-bit encoding the XML declaration names, lowercased, if it is one of ours.
    static func declaredSingleByteEncoding(_ data: Data) -> String? {
        let head = Array(data.prefix(256))
        guard head.starts(with: Array("<?xml".utf8)), let end = head.firstRange(of: Array("?>".utf8)),
            let declaration = String(validating: head[..<end.lowerBound], as: UTF8.self)
        else { return nil }
        // version="…" encoding="NAME": attributes are name = quoted value, separated by spaces.
        var rest = Substring(declaration.dropFirst(5))
        while let equals = rest.firstIndex(of: "=") {
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces)
            var value = rest[rest.index(after: equals)...].drop { $0 == " " }
            guard let quote = value.first, quote == "\"" || quote == "'" else { return nil }
            value = value.dropFirst()
            guard let close = value.firstIndex(of: quote) else { return nil }
            if name == "encoding" {
                let encoding = value[..<close].lowercased()
                return singleByteEncodings.contains(encoding) ? encoding : nil
            }
            guard name == "version" else { return nil }
            rest = value[value.index(after: close)...]
        }
        return nil
    }
}

/// Collects `playlist/title` and `playlist/trackList/track/location`.
private final class XSPFDelegate: NSObject, XMLParserDelegate {
    var parsed = PlaylistReader.Parsed()
    var sawForeignRoot = false
    var sawRoot = false
    private var path: [String] = []
    var isBalanced: Bool { path.isEmpty }
    private var text = ""

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        if path.isEmpty, elementName != "playlist" {
            sawForeignRoot = true
            parser.abortParsing()
        }
        if path.isEmpty { sawRoot = true }
        path.append(elementName)
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if text.utf8.count < 65_536 { text += string }
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if path == ["playlist", "title"] {
            parsed.name = value
        } else if path == ["playlist", "trackList", "track", "location"], !value.isEmpty {
            if parsed.entries.count < PlaylistReader.maximumEntries {
                parsed.entries.append(value)
            } else {
                parsed.truncated = true
            }
        }
        path.removeLast()
        text = ""
    }
}
