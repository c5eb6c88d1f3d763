import BackbeatSupport
import CStb
import Foundation

/// The door to stb_image, stb_image_resize and stb_image_write: the only
/// file in the library that handles image pointers.
enum ImageCodec {
    /// Pictures larger than this on a side are refused before decoding.
    static let maximumSide = 16_384
    /// Pictures with more pixels than this (4096 × 4096, 16.7 megapixels) are
    /// refused before decoding: decoded, such a picture takes 64 MiB of RGBA.
    static let maximumPixels = 4096 * 4096

    /// The two formats artwork may be in, recognised by their first bytes.
    enum Format: String {
        case jpeg = "JPEG"
        case png = "PNG"

        static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

        /// The format whose magic bytes `bytes` start with; nil for anything
        /// else (GIF, BMP, PPM, PSD, TGA, HDR…, which stb would also read).
        init?(magic bytes: UnsafeRawBufferPointer) {
            if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF {
                self = .jpeg
            } else if bytes.count >= 8, bytes.prefix(8).elementsEqual(Self.pngSignature) {
                self = .png
            } else {
                return nil
            }
        }
    }

    /// The native size of an encoded JPEG or PNG, read from its header only;
    /// nil for any other format (by magic bytes) or an unreadable header.
    /// The size is not checked against the limits: see ``isDecodable(_:)``.
    static func size(of data: Data) -> MediaItemArtwork.Size? {
        data.withUnsafeBytes { raw -> MediaItemArtwork.Size? in
            guard Format(magic: raw) != nil else { return nil }
            return headerSize(raw)
        }
    }

    /// Whether a picture of this size is within ``maximumSide`` and ``maximumPixels``.
    static func isDecodable(_ size: MediaItemArtwork.Size) -> Bool {
        // Both sides are at most 16,384 here, so the product cannot overflow.
        size.width <= maximumSide && size.height <= maximumSide && size.width * size.height <= maximumPixels
    }

    private static func headerSize(_ raw: UnsafeRawBufferPointer) -> MediaItemArtwork.Size? {
        guard let base = raw.bindMemory(to: UInt8.self).baseAddress, raw.count <= Int(Int32.max) else { return nil }
        var w: Int32 = 0
        var h: Int32 = 0
        var comp: Int32 = 0
        guard stbi_info_from_memory(base, Int32(raw.count), &w, &h, &comp) == 1, w > 0, h > 0 else { return nil }
        return .init(width: Int(w), height: Int(h))
    }

    /// The native size of an image file, reading only its first 64 KiB.
    static func size(ofFile path: String) -> MediaItemArtwork.Size? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 65_536) else { return nil }
        return size(of: head)
    }

    /// Decodes a JPEG or PNG and scales it to exactly `size`.
    ///
    /// The format is checked by its magic bytes and the native size against
    /// the limits before stb decodes anything. stb decodes into its own
    /// buffer, in the picture's own channel count, which is scaled (or, at the
    /// native size, widened) once into the result and freed: no other
    /// full-size copy is made.
    ///
    /// - Throws: ``BackbeatError/Code/invalidImage`` for another format, a
    ///   picture over the limits, or one stb cannot decode.
    static func decode(_ data: Data, url: URL?, scaledTo size: MediaItemArtwork.Size) throws -> ArtworkImage {
        try data.withUnsafeBytes { raw in
            guard let format = Format(magic: raw) else {
                let head = raw.prefix(4).map { String(format: "%02X", $0) }.joined(separator: " ")
                throw BackbeatError(
                    .invalidImage, operation: "artwork decode", url: url,
                    reason: "not a JPEG or PNG picture (starts with \(head.isEmpty ? "nothing" : head))")
            }
            guard let native = headerSize(raw) else {
                throw BackbeatError(
                    .invalidImage, operation: "stbi_info", url: url, reason: "unreadable \(format.rawValue) header")
            }
            guard isDecodable(native) else {
                throw BackbeatError(
                    .invalidImage, operation: "artwork decode", url: url,
                    reason: "\(format.rawValue) picture of \(native) is over the limit of 4096×4096 pixels")
            }
            // stb decodes in the picture's own channel count (grey, grey and
            // alpha, RGB or RGBA): for a grey or RGB picture that buffer is a
            // quarter smaller than RGBA. It is scaled in that channel count
            // and widened to RGBA last, which gives the same pixels as
            // widening first (every channel is filtered alike).
            var w: Int32 = 0
            var h: Int32 = 0
            var comp: Int32 = 0
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress,
                let pixels = stbi_load_from_memory(base, Int32(raw.count), &w, &h, &comp, 0)
            else {
                let reason = stbi_failure_reason().map { String(cString: $0) } ?? "decode failed"
                throw BackbeatError(.invalidImage, operation: "stbi_load", url: url, reason: reason)
            }
            defer { stbi_image_free(pixels) }
            guard Int(w) == native.width, Int(h) == native.height, (1...4).contains(comp) else {
                throw BackbeatError(
                    .invalidImage, operation: "stbi_load", url: url,
                    reason: "decoded \(w)×\(h) with \(comp) channels, header said \(native)")
            }
            let channels = Int(comp)
            let count = size.width * size.height
            func scale(into out: UnsafeMutablePointer<UInt8>) -> Bool {
                stbir_resize_uint8(
                    pixels, w, h, 0, out, Int32(size.width), Int32(size.height), 0, comp) == 1
            }
            var ok = true
            let rgba = [UInt8](unsafeUninitializedCapacity: count * 4) { out, initialized in
                let out = out.baseAddress!
                if channels == 4 {
                    if size == native {
                        out.initialize(from: pixels, count: count * 4)
                    } else {
                        ok = scale(into: out)
                    }
                } else if size == native {
                    widen(pixels, channels: channels, count: count, into: out)
                } else {
                    let scaled = UnsafeMutablePointer<UInt8>.allocate(capacity: count * channels)
                    defer { scaled.deallocate() }
                    ok = scale(into: scaled)
                    if ok { widen(scaled, channels: channels, count: count, into: out) }
                }
                if !ok { out.initialize(repeating: 0, count: count * 4) }
                initialized = count * 4
            }
            guard ok else {
                throw BackbeatError(
                    .invalidImage, operation: "stbir_resize_uint8", url: url,
                    reason: "cannot scale \(native) to \(size)")
            }
            return ArtworkImage(size: size, rgba: rgba)
        }
    }

    /// Widens `count` pixels of grey (1), grey and alpha (2) or RGB (3) to RGBA, as stb does.
    private static func widen(
        _ input: UnsafePointer<UInt8>, channels: Int, count: Int, into out: UnsafeMutablePointer<UInt8>
    ) {
        for i in 0..<count {
            let p = input + i * channels
            let o = out + i * 4
            switch channels {
            case 1: (o[0], o[1], o[2], o[3]) = (p[0], p[0], p[0], 255)
            case 2: (o[0], o[1], o[2], o[3]) = (p[0], p[0], p[0], p[1])
            default: (o[0], o[1], o[2], o[3]) = (p[0], p[1], p[2], 255)
            }
        }
    }

    static func encodePNG(_ image: ArtworkImage) throws -> Data {
        final class Sink { var data = Data() }
        let sink = Sink()
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let ok = withExtendedLifetime(sink) {
            image.rgba.withUnsafeBufferPointer { pixels in
                stbi_write_png_to_func(
                    { context, bytes, count in
                        guard let context, let bytes, count > 0 else { return }
                        Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue().data.append(
                            bytes.assumingMemoryBound(to: UInt8.self), count: Int(count))
                    }, context, Int32(image.size.width), Int32(image.size.height), 4, pixels.baseAddress,
                    Int32(image.size.width * 4))
            }
        }
        guard ok != 0 else {
            throw BackbeatError(
                .invalidImage, operation: "stbi_write_png", reason: "cannot encode \(image.size) picture")
        }
        return sink.data
    }
}
