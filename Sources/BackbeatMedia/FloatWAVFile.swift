import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes 32-bit float WAV with the header standard readers expect, and
/// nothing that changes from one run to the next.
///
/// libsndfile writes float WAV with a 16-byte `fmt ` chunk, which `sox`
/// warns about on every read ("missing extended part of fmt chunk"), and
/// with a `PEAK` chunk that carries the wall-clock time, so the same audio
/// gave different bytes. Its `WAVE_FORMAT_EXTENSIBLE` variant warns in `sox`
/// as well. This writes what `sox` itself writes: `WAVE_FORMAT_IEEE_FLOAT`
/// with an 18-byte `fmt ` chunk (`cbSize` 0), a `fact` chunk, the tags in a
/// `LIST`/`INFO` chunk, then `data`. The sizes are filled in by ``finish()``.
/// The file goes through ``OutputFile`` like every writer's.
final class FloatWAVFile {
    let url: URL
    let channelCount: Int
    private let output: OutputFile
    private var file: UnsafeMutablePointer<FILE>?
    private var dataBytes: UInt64 = 0
    /// Where the `fact` chunk's frame count and the `data` chunk's size sit, patched by ``finish()``.
    private let factOffset: Int
    private let dataSizeOffset: Int
    private(set) var framesWritten: Int64 = 0

    /// RIFF sizes are 32-bit: the whole file must stay under 4 GiB.
    private static let maximumDataBytes = UInt64(UInt32.max) - 1024

    /// Opens the temporary file and writes the header with zero sizes.
    ///
    /// - Parameters:
    ///   - output: The file to create and its temporary name.
    ///   - sampleRate: Frames per second.
    ///   - channelCount: Interleaved channels per frame.
    ///   - tags: Stored as RIFF INFO: title, artist, album, genre, date and track number.
    /// - Throws: ``BackbeatError`` `.writeFailed` if the temporary file cannot be written.
    init(output: OutputFile, sampleRate: Int, channelCount: Int, tags: AudioTags) throws {
        self.url = output.url
        self.channelCount = channelCount
        self.output = output
        var header = HeaderBytes()
        header.append("RIFF")
        header.append(UInt32(0))
        header.append("WAVE")
        header.append("fmt ")
        header.append(UInt32(18))
        header.append(UInt16(3))  // WAVE_FORMAT_IEEE_FLOAT
        header.append(UInt16(channelCount))
        header.append(UInt32(sampleRate))
        header.append(UInt32(sampleRate * channelCount * 4))
        header.append(UInt16(channelCount * 4))
        header.append(UInt16(32))
        header.append(UInt16(0))  // cbSize: no extension follows
        header.append("fact")
        header.append(UInt32(4))
        factOffset = header.bytes.count
        header.append(UInt32(0))
        header.appendInfo(Self.infoEntries(tags))
        header.append("data")
        dataSizeOffset = header.bytes.count
        header.append(UInt32(0))
        guard let file = fopen(output.temporaryURL.path, "wb") else {
            let reason = String(cString: strerror(errno))
            throw BackbeatError(.writeFailed, operation: "fopen", url: url, reason: reason)
        }
        self.file = file
        do {
            try header.bytes.withUnsafeBytes { try put($0, operation: "write header") }
        } catch {
            cancel()
            throw error
        }
    }

    deinit { cancel() }

    /// The RIFF INFO fields libsndfile reads back as the same tags.
    private static func infoEntries(_ tags: AudioTags) -> [(String, String)] {
        let fields: [(String, String?)] = [
            ("INAM", tags.title), ("IART", tags.artist), ("IPRD", tags.albumTitle), ("IGNR", tags.genre),
            ("ICRD", tags.date), ("ITRK", tags.trackNumber.map(String.init)),
        ]
        return fields.compactMap { id, value in value.map { (id, $0) } }
    }

    /// Appends interleaved frames.
    ///
    /// - Parameter samples: Whole frames of `channelCount` samples.
    /// - Throws: ``BackbeatError`` `.writeFailed` if the disk refuses them or the file would pass 4 GiB;
    ///   the file is removed then.
    func write(_ samples: ArraySlice<Float>) throws {
        let frames = samples.count / channelCount
        let byteCount = UInt64(frames * channelCount * 4)
        guard dataBytes + byteCount <= Self.maximumDataBytes else {
            cancel()
            throw BackbeatError(.writeFailed, operation: "write", url: url, reason: "a WAV file holds at most 4 GiB")
        }
        #if _endian(big)
        let bytes = samples.prefix(frames * channelCount).map { $0.bitPattern.littleEndian }
        try bytes.withUnsafeBytes { try put($0, operation: "write samples") }
        #else
        try samples.prefix(frames * channelCount).withUnsafeBytes { try put($0, operation: "write samples") }
        #endif
        dataBytes += byteCount
        framesWritten += Int64(frames)
    }

    /// Fills in the sizes, closes the file and moves it into place.
    ///
    /// - Throws: ``BackbeatError`` `.writeFailed`; nothing is left behind then.
    func finish() throws {
        guard let file else { return }
        do {
            // RIFF chunks are even-sized; float samples always are.
            try patch(UInt32(truncatingIfNeeded: UInt64(dataSizeOffset) + 4 + dataBytes - 8), at: 4)
            try patch(UInt32(truncatingIfNeeded: framesWritten), at: factOffset)
            try patch(UInt32(truncatingIfNeeded: dataBytes), at: dataSizeOffset)
        } catch {
            cancel()
            throw error
        }
        self.file = nil
        guard fclose(file) == 0 else {
            let reason = String(cString: strerror(errno))
            output.discard()
            throw BackbeatError(.writeFailed, operation: "fclose", url: url, reason: reason)
        }
        try output.commit()
    }

    /// Abandons the file; nothing is left on disk.
    func cancel() {
        guard let file else { return }
        self.file = nil
        fclose(file)
        output.discard()
    }

    private func patch(_ value: UInt32, at offset: Int) throws {
        guard let file, fseek(file, offset, SEEK_SET) == 0 else {
            throw BackbeatError(.writeFailed, operation: "fseek", url: url, reason: String(cString: strerror(errno)))
        }
        try withUnsafeBytes(of: value.littleEndian) { try put($0, operation: "write header") }
    }

    private func put(_ buffer: UnsafeRawBufferPointer, operation: String) throws {
        guard let file else {
            throw BackbeatError(.writeFailed, operation: operation, url: url, reason: "writer is closed")
        }
        guard buffer.isEmpty || fwrite(buffer.baseAddress, 1, buffer.count, file) == buffer.count else {
            let reason = String(cString: strerror(errno))
            cancel()
            throw BackbeatError(.writeFailed, operation: operation, url: url, reason: reason)
        }
    }

    /// Little-endian RIFF fields, appended to a byte array.
    private struct HeaderBytes {
        var bytes: [UInt8] = []

        mutating func append(_ fourCC: String) { bytes += Array(fourCC.utf8) }

        mutating func append(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }

        mutating func append(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }

        /// A `LIST` chunk of type `INFO`, each value NUL-terminated and padded to an even size; nothing when empty.
        mutating func appendInfo(_ entries: [(String, String)]) {
            guard !entries.isEmpty else { return }
            var body: [UInt8] = Array("INFO".utf8)
            for (id, value) in entries {
                var text = Array(value.utf8) + [0]
                body += Array(id.utf8)
                withUnsafeBytes(of: UInt32(text.count).littleEndian) { body += $0 }
                if text.count % 2 == 1 { text.append(0) }
                body += text
            }
            append("LIST")
            append(UInt32(body.count))
            bytes += body
        }
    }
}
