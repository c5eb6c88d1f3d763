import BackbeatSupport
import Foundation

/// An item's artwork: the picture embedded in its file, or a `cover`/`folder`
/// image beside it. It knows its native size; ``image(at:)`` decodes and
/// scales it on demand.
public struct MediaItemArtwork: Hashable, Sendable {
    /// A size in pixels.
    public struct Size: Hashable, Sendable, CustomStringConvertible {
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// Creates a size.
        ///
        /// - Parameters:
        ///   - width: The width in pixels (1...4096 for ``MediaItemArtwork/image(at:)``).
        ///   - height: The height in pixels (1...4096 for ``MediaItemArtwork/image(at:)``).
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
        public var description: String { "\(width)×\(height)" }
    }

    enum Source: Hashable, Sendable {
        /// The picture embedded in the audio file at this path.
        case embedded(String)
        /// An image file at this path.
        case imageFile(String)
    }

    let source: Source
    /// The native size of the picture.
    public let bounds: Size

    /// The picture scaled to exactly `size`, or nil when the picture has gone
    /// from the file since the last scan (callers show a placeholder).
    ///
    /// - Parameter size: The image's size in pixels, 1...4096 on each side.
    /// - Returns: The scaled picture, or nil when it is gone.
    /// - Throws: ``BackbeatError/Code/invalidArgument`` for a size outside
    ///   1...4096 on either side, ``BackbeatError/Code/invalidImage`` when the
    ///   picture is not a JPEG or PNG (by its first bytes), is larger than
    ///   4096 × 4096 pixels in all (checked from its header, before decoding)
    ///   or cannot be decoded.
    public func image(at size: Size) throws -> ArtworkImage? {
        guard (1...4096).contains(size.width), (1...4096).contains(size.height) else {
            throw BackbeatError(
                .invalidArgument, operation: "artwork image", reason: "size \(size) is outside 1...4096")
        }
        guard let encoded = try encodedData() else { return nil }
        return try ImageCodec.decode(encoded.data, url: encoded.url, scaledTo: size)
    }

    /// The picture's encoded bytes as stored (JPEG or PNG), or nil when it is gone.
    func encodedData() throws -> (data: Data, url: URL)? {
        switch source {
        case .imageFile(let path):
            let url = URL(fileURLWithPath: path)
            guard let data = FileManager.default.contents(atPath: path) else { return nil }
            return (data, url)
        case .embedded(let path):
            let url = URL(fileURLWithPath: path)
            guard let data = try LibraryCodecs.source.metadata(for: url).embeddedPicture else { return nil }
            return (data, url)
        }
    }
}

/// A decoded picture: 8-bit RGBA pixels, row by row.
public struct ArtworkImage: Hashable, Sendable {
    /// The size in pixels.
    public let size: MediaItemArtwork.Size
    /// `width * height * 4` bytes: red, green, blue, alpha.
    public let rgba: [UInt8]

    package init(size: MediaItemArtwork.Size, rgba: [UInt8]) {
        self.size = size
        self.rgba = rgba
    }

    /// The pixel at (`x`, `y`) as (r, g, b, a).
    ///
    /// - Parameters:
    ///   - x: The column, `0..<size.width` (outside traps).
    ///   - y: The row from the top, `0..<size.height` (outside traps).
    /// - Returns: The pixel's red, green, blue and alpha, 0...255.
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * size.width + x) * 4
        return (rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3])
    }

    /// The picture encoded as PNG.
    public func pngData() throws -> Data { try ImageCodec.encodePNG(self) }
}
