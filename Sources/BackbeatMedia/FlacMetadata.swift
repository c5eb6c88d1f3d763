#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a native FLAC file's VORBIS_COMMENT and PICTURE metadata blocks,
/// bounds-checked: a hostile length ends the walk instead of reading past the
/// file or allocating what it claims.
enum FlacMetadata {
    /// The most comment and picture metadata read before giving up; blocks
    /// that are skipped (padding, seek tables, application data) do not count.
    static let maxMetadataBytes = 16 * 1024 * 1024

    /// Tags from the file's metadata, or nil when it is not a native FLAC file.
    static func read(_ source: ByteSourceReader) -> VorbisComments.Reading? {
        var offset: Int64 = 0
        func next(_ count: Int) -> [UInt8]? {
            guard let bytes = try? source.bytes(at: offset, count: count) else { return nil }
            offset += Int64(bytes.count)
            return bytes
        }
        guard let magic = next(4), magic == Array("fLaC".utf8) else { return nil }
        var comments: [[UInt8]] = []
        var pictures: [Artwork] = []
        var errors: [String] = []
        var total = 0
        while true {
            guard let header = next(4), header.count == 4 else { break }
            let h = header
            let isLast = h[0] & 0x80 != 0
            let type = h[0] & 0x7F
            let length = Int(h[1]) << 16 | Int(h[2]) << 8 | Int(h[3])
            if type == 4 || type == 6 {
                // Only what is read counts: skipped blocks (padding, seek
                // tables, application data) cost a seek, not memory.
                total += length
                if total > maxMetadataBytes {
                    errors.append("FLAC metadata exceeds \(maxMetadataBytes) bytes")
                    break
                }
                guard let body = next(length), body.count == length else {
                    errors.append("FLAC metadata block ends early")
                    break
                }
                if type == 4 {
                    if let parsed = parseCommentBlock([UInt8](body)) { comments += parsed }
                } else {
                    switch PictureBlock.parse(Data(body)) {
                    case .success(let artwork): pictures.append(artwork)
                    case .failure(let error): errors.append(error.reason)
                    }
                }
            } else {
                offset += Int64(length)
                guard offset < source.size else { break }
            }
            if isLast { break }
        }
        var reading = VorbisComments.read(comments)
        reading.tags.artwork += pictures
        reading.artworkErrors += errors
        return reading
    }

    /// The comments of a Vorbis comment block (little-endian lengths, no framing bit), or nil if malformed.
    static func parseCommentBlock(_ b: [UInt8]) -> [[UInt8]]? {
        var offset = 0
        func le32() -> Int? {
            guard offset + 4 <= b.count else { return nil }
            defer { offset += 4 }
            return Int(b[offset]) | Int(b[offset + 1]) << 8 | Int(b[offset + 2]) << 16 | Int(b[offset + 3]) << 24
        }
        guard let vendor = le32(), vendor <= b.count - offset else { return nil }
        offset += vendor
        guard let count = le32() else { return nil }
        var out: [[UInt8]] = []
        for _ in 0..<min(count, b.count / 4) {
            guard let length = le32(), length <= b.count - offset else { return out }
            out.append(Array(b[offset..<offset + length]))
            offset += length
        }
        return out
    }
}
