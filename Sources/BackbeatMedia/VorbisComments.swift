#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Maps Vorbis comments (`KEY=value`, keys case-insensitive) to
/// ``AudioTags`` and back. Used for Ogg Vorbis and FLAC.
package enum VorbisComments {
    /// Tags read from comments, and the reasons any embedded pictures were rejected.
    package struct Reading: Sendable {
        package var tags = AudioTags()
        package var artworkErrors: [String] = []
    }

    /// Reads tags from raw comments (each `KEY=value`, UTF-8). The first value of a key wins.
    static func read(_ comments: [[UInt8]]) -> Reading {
        var reading = Reading()
        var tags = AudioTags()
        func text(_ bytes: ArraySlice<UInt8>) -> String? {
            let s = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
            return s.isEmpty ? nil : s
        }
        var loop: [String: String] = [:]
        for comment in comments {
            guard let eq = comment.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = String(decoding: comment[..<eq], as: UTF8.self).uppercased()
            let value = comment[(eq + 1)...]
            switch key {
            case "TITLE": tags.title = tags.title ?? text(value)
            case "ARTIST": tags.artist = tags.artist ?? text(value)
            case "ALBUM": tags.albumTitle = tags.albumTitle ?? text(value)
            case "ALBUMARTIST", "ALBUM ARTIST", "ALBUM_ARTIST": tags.albumArtist = tags.albumArtist ?? text(value)
            case "GENRE": tags.genre = tags.genre ?? text(value)
            case "COMPOSER": tags.composer = tags.composer ?? text(value)
            case "TRACKNUMBER": tags.trackNumber = tags.trackNumber ?? leadingInteger(text(value))
            case "DISCNUMBER": tags.discNumber = tags.discNumber ?? leadingInteger(text(value))
            case "DATE": tags.date = tags.date ?? text(value)
            case "YEAR": if tags.date == nil { tags.date = text(value) }
            case "COMPILATION": tags.isCompilation = tags.isCompilation ?? boolean(text(value))
            case "BPM", "TEMPO":
                tags.beatsPerMinute = tags.beatsPerMinute ?? leadingInteger(text(value)).flatMap { $0 > 0 ? $0 : nil }
            case "TIMESIGNATURE", "TIME_SIGNATURE": tags.timeSignature = tags.timeSignature ?? text(value)
            case "LOOPSTART", "LOOPLENGTH", "LOOPEND":
                if loop[key] == nil { loop[key] = text(value) ?? "" }
            case "METADATA_BLOCK_PICTURE":
                switch PictureBlock.parseBase64(value) {
                case .success(let artwork): tags.artwork.append(artwork)
                case .failure(let error): reading.artworkErrors.append(error.reason)
                }
            default: break
            }
        }
        tags.loopPoints = LoopPoints.fromComments(
            start: loop["LOOPSTART"], length: loop["LOOPLENGTH"], end: loop["LOOPEND"])
        reading.tags = tags
        return reading
    }

    /// The comments that carry `tags`, pictures base64-encoded.
    static func comments(for tags: AudioTags) -> [(key: String, value: String)] {
        var out: [(String, String)] = []
        if let v = tags.title { out.append(("TITLE", v)) }
        if let v = tags.artist { out.append(("ARTIST", v)) }
        if let v = tags.albumTitle { out.append(("ALBUM", v)) }
        if let v = tags.albumArtist { out.append(("ALBUMARTIST", v)) }
        if let v = tags.genre { out.append(("GENRE", v)) }
        if let v = tags.composer { out.append(("COMPOSER", v)) }
        if let v = tags.trackNumber { out.append(("TRACKNUMBER", String(v))) }
        if let v = tags.discNumber { out.append(("DISCNUMBER", String(v))) }
        if let v = tags.date { out.append(("DATE", v)) }
        if let v = tags.isCompilation { out.append(("COMPILATION", v ? "1" : "0")) }
        if let v = tags.beatsPerMinute { out.append(("BPM", String(v))) }
        if let v = tags.timeSignature { out.append(("TIMESIGNATURE", v)) }
        if let v = tags.loopPoints {
            out.append(("LOOPSTART", String(v.start)))
            out.append(("LOOPLENGTH", String(v.length)))
        }
        for artwork in tags.artwork {
            out.append(("METADATA_BLOCK_PICTURE", Base64.encode(PictureBlock.serialise(artwork))))
        }
        return out
    }

    /// `3` from `3`, `03` or `3/12`; nil when there is no leading number.
    static func leadingInteger(_ s: String?) -> Int? {
        guard let s else { return nil }
        let digits = s.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 9 else { return nil }
        return Int(digits)
    }

    static func boolean(_ s: String?) -> Bool? {
        switch s?.lowercased() {
        case "1", "true", "yes": true
        case "0", "false", "no": false
        default: nil
        }
    }
}
