#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The FLAC picture block (also the payload of Vorbis's
/// METADATA_BLOCK_PICTURE comment): big-endian fields, each length checked
/// against the bytes actually present, so hostile input is rejected with a
/// reason instead of read out of bounds or allowed to allocate wildly.
enum PictureBlock {
    /// Largest accepted MIME type or description, in bytes.
    static let maxTextLength = 64 * 1024

    /// Parses a picture block, or returns why it is malformed.
    static func parse(_ bytes: Data) -> Result<Artwork, PictureError> {
        var reader = ByteReader(bytes)
        do throws(PictureError) {
            let type = try reader.uint32()
            guard type <= 20 else { return .failure(PictureError("picture type \(type) is out of range")) }
            let mimeLength = try reader.uint32()
            guard mimeLength <= maxTextLength else {
                return .failure(PictureError("MIME type length \(mimeLength) is too long"))
            }
            let mime = try reader.bytes(Int(mimeLength))
            guard mime.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) else {
                return .failure(PictureError("MIME type is not printable ASCII"))
            }
            let descriptionLength = try reader.uint32()
            guard descriptionLength <= maxTextLength else {
                return .failure(PictureError("description length \(descriptionLength) is too long"))
            }
            let description = try reader.bytes(Int(descriptionLength))
            let width = try reader.uint32()
            let height = try reader.uint32()
            _ = try reader.uint32()  // colour depth
            _ = try reader.uint32()  // indexed colours
            let dataLength = try reader.uint32()
            guard Int(dataLength) <= reader.remaining else {
                return .failure(
                    PictureError("picture data length \(dataLength) exceeds the \(reader.remaining) bytes present"))
            }
            let data = try reader.bytes(Int(dataLength))
            guard dataLength > 0 else { return .failure(PictureError("picture data is empty")) }
            return .success(
                Artwork(
                    data: Data(data), mimeType: String(decoding: mime, as: UTF8.self),
                    width: Int(width), height: Int(height), pictureType: Int(type),
                    description: String(decoding: description, as: UTF8.self)))
        } catch {
            return .failure(error)
        }
    }

    /// Parses the base64 text of a METADATA_BLOCK_PICTURE comment.
    static func parseBase64<S: Collection>(_ text: S) -> Result<Artwork, PictureError> where S.Element == UInt8 {
        guard let bytes = Base64.decode(text) else {
            return .failure(PictureError("METADATA_BLOCK_PICTURE is not valid base64"))
        }
        return parse(bytes)
    }

    /// Serialises a picture block.
    static func serialise(_ artwork: Artwork) -> Data {
        var out = Data()
        func put(_ v: Int) {
            var be = UInt32(truncatingIfNeeded: v).bigEndian
            withUnsafeBytes(of: &be) { out.append(contentsOf: $0) }
        }
        let mime = Data(artwork.mimeType.utf8)
        let description = Data(artwork.description.utf8)
        put(artwork.pictureType)
        put(mime.count)
        out.append(mime)
        put(description.count)
        out.append(description)
        put(artwork.width)
        put(artwork.height)
        put(0)
        put(0)
        put(artwork.data.count)
        out.append(artwork.data)
        return out
    }

    struct PictureError: Error, Equatable {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// Reads big-endian integers and byte runs, never past the end.
    private struct ByteReader {
        let bytes: [UInt8]
        var offset = 0
        init(_ data: Data) { bytes = [UInt8](data) }
        var remaining: Int { bytes.count - offset }

        mutating func uint32() throws(PictureError) -> UInt32 {
            guard remaining >= 4 else {
                throw PictureError("picture block ends early (needs 4 bytes at offset \(offset), has \(remaining))")
            }
            let v =
                UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
                | UInt32(bytes[offset + 3])
            offset += 4
            return v
        }

        mutating func bytes(_ n: Int) throws(PictureError) -> ArraySlice<UInt8> {
            guard n >= 0, n <= remaining else {
                throw PictureError("picture block ends early (needs \(n) bytes at offset \(offset), has \(remaining))")
            }
            defer { offset += n }
            return bytes[offset..<offset + n]
        }
    }
}
