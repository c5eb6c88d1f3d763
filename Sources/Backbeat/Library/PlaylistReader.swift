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
                throw BackbeatError(.invalidPlaylist, operation: "read playlist", url: url,
                                    reason: "\(size) bytes is more than the \(maximumBytes >> 20) MiB limit")
            }
            data = try Data(contentsOf: url)
        } catch let error as BackbeatError {
            throw error
        } catch {
            throw BackbeatError(.unreadableFile, operation: "read playlist", url: url, reason: error.localizedDescription)
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
                if line.hasPrefix("#PLAYLIST:") { parsed.name = String(line.dropFirst(10)).trimmingCharacters(in: .whitespaces) }
                continue
            }
            guard parsed.entries.count < maximumEntries else { parsed.truncated = true; break }
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
            guard numbered.count < maximumEntries else { parsed.truncated = true; break }
            numbered.append((number, value))
        }
        parsed.entries = numbered.sorted { $0.0 < $1.0 }.map(\.1)
        return parsed
    }

    static func parseXSPF(_ data: Data, url: URL) throws -> Parsed {
        let delegate = XSPFDelegate()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = delegate
        let parsedOK = parser.parse()
        guard parsedOK, !delegate.sawForeignRoot, delegate.sawRoot, delegate.isBalanced else {
            let reason = delegate.sawForeignRoot ? "root element is not <playlist>"
                : !parsedOK ? "malformed XML at line \(parser.lineNumber): \(parser.parserError?.localizedDescription ?? "parse error")"
                : !delegate.sawRoot ? "no <playlist> element" : "document ends inside an element"
            throw BackbeatError(.invalidPlaylist, operation: "parse XSPF", url: url, reason: reason)
        }
        return delegate.parsed
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

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
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

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if path == ["playlist", "title"] {
            parsed.name = value
        } else if path == ["playlist", "trackList", "track", "location"], !value.isEmpty {
            if parsed.entries.count < PlaylistReader.maximumEntries { parsed.entries.append(value) } else { parsed.truncated = true }
        }
        path.removeLast()
        text = ""
    }
}
