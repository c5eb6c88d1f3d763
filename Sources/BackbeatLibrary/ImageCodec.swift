import CStb
import Foundation
import BackbeatSupport

/// The door to stb_image, stb_image_resize and stb_image_write: the only
/// file in the library that handles image pointers.
enum ImageCodec {
    /// Pictures larger than this on a side are refused before decoding.
    static let maximumSide = 16_384

    /// The native size of an encoded JPEG or PNG, read from its header only.
    static func size(of data: Data) -> MediaItemArtwork.Size? {
        data.withUnsafeBytes { raw -> MediaItemArtwork.Size? in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress, raw.count <= Int(Int32.max) else { return nil }
            var w: Int32 = 0, h: Int32 = 0, comp: Int32 = 0
            guard stbi_info_from_memory(base, Int32(raw.count), &w, &h, &comp) == 1, w > 0, h > 0 else { return nil }
            return .init(width: Int(w), height: Int(h))
        }
    }

    /// The native size of an image file, reading only its first 64 KiB.
    static func size(ofFile path: String) -> MediaItemArtwork.Size? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 65_536) else { return nil }
        return size(of: head)
    }

    static func decode(_ data: Data, url: URL) throws -> ArtworkImage {
        guard let native = size(of: data) else {
            throw BackbeatError(.invalidImage, operation: "stbi_info", url: url, reason: "not a JPEG or PNG picture")
        }
        guard native.width <= maximumSide, native.height <= maximumSide else {
            throw BackbeatError(
                .invalidImage, operation: "stbi_load", url: url, reason: "picture of \(native) is too large")
        }
        return try data.withUnsafeBytes { raw in
            var w: Int32 = 0, h: Int32 = 0, comp: Int32 = 0
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress,
                let pixels = stbi_load_from_memory(base, Int32(raw.count), &w, &h, &comp, 4)
            else {
                let reason = stbi_failure_reason().map { String(cString: $0) } ?? "decode failed"
                throw BackbeatError(.invalidImage, operation: "stbi_load", url: url, reason: reason)
            }
            defer { stbi_image_free(pixels) }
            let bytes = Array(UnsafeBufferPointer(start: pixels, count: Int(w) * Int(h) * 4))
            return ArtworkImage(size: .init(width: Int(w), height: Int(h)), rgba: bytes)
        }
    }

    static func resize(_ image: ArtworkImage, to size: MediaItemArtwork.Size, url: URL?) throws -> ArtworkImage {
        if image.size == size { return image }
        var output = [UInt8](repeating: 0, count: size.width * size.height * 4)
        let ok = image.rgba.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stbir_resize_uint8(
                    input.baseAddress, Int32(image.size.width), Int32(image.size.height), 0,
                    out.baseAddress, Int32(size.width), Int32(size.height), 0, 4)
            }
        }
        guard ok == 1 else {
            throw BackbeatError(
                .invalidImage, operation: "stbir_resize_uint8", url: url,
                reason: "cannot scale \(image.size) to \(size)")
        }
        return ArtworkImage(size: size, rgba: output)
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
