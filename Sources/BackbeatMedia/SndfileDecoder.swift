import BackbeatSupport
import CSndfile

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

/// Decodes WAV, AIFF, CAF, FLAC, MP3, Ogg Opus and the rest of libsndfile's
/// formats.
///
/// Others may rely on: the ``AudioDecoder`` contract. Tags are libsndfile's
/// strings (title, artist, album, genre, date, track number), except FLAC,
/// whose Vorbis comments and PICTURE blocks Backbeat reads itself and so
/// yields every ``AudioTags`` field.
final class SndfileDecoder: AudioDecoder {
    let url: URL
    let sampleRate: Int
    let channelCount: Int
    let frameCount: Int64
    let container: String
    let codec: String
    let nativeCommonFormat: AudioFormat.CommonFormat
    private(set) var position: Int64 = 0
    private var handle: OpaquePointer?
    private let major: Int32

    /// Keeps the bytes' position for libsndfile's virtual I/O; lives as long as `handle`.
    private let cursor: ByteSourceCursor

    /// Opens `source` through libsndfile's virtual I/O (`sf_open_virtual`).
    init(source: ByteSourceReader) throws {
        let url = source.url
        self.url = url
        let cursor = ByteSourceCursor(source)
        self.cursor = cursor
        var info = SF_INFO()
        var io = Self.virtualIO
        let handle = sf_open_virtual(&io, Int32(SFM_READ), &info, Unmanaged.passUnretained(cursor).toOpaque())
        guard let handle else {
            let code = sf_error(nil)
            let reason = String(cString: sf_strerror(nil))
            if let error = cursor.error { throw error }
            switch Int(code) {
            case SF_ERR_UNSUPPORTED_ENCODING:
                throw BackbeatError(.unsupportedCodec, operation: "sf_open", url: url, reason: reason)
            case SF_ERR_UNRECOGNISED_FORMAT:
                throw BackbeatError(.corruptFile, operation: "sf_open", url: url, reason: "not a recognised audio file")
            default:
                throw BackbeatError(.corruptFile, operation: "sf_open", url: url, reason: reason)
            }
        }
        guard info.channels > 0, info.channels <= 64, info.samplerate > 0, info.frames >= 0 else {
            sf_close(handle)
            throw BackbeatError(
                .corruptFile, operation: "sf_open", url: url,
                reason: "invalid format (\(info.samplerate) Hz, \(info.channels) channels)")
        }
        do {
            try DecoderLimits.check(
                sampleRate: Int(info.samplerate), channels: Int(info.channels), frames: Int64(info.frames),
                size: source.size, url: url, operation: "sf_open")
        } catch {
            sf_close(handle)
            throw error
        }
        self.handle = handle
        sampleRate = Int(info.samplerate)
        channelCount = Int(info.channels)
        frameCount = Int64(info.frames)
        major = info.format & Int32(SF_FORMAT_TYPEMASK)
        let subtype = info.format & Int32(SF_FORMAT_SUBMASK)
        container = Self.containerName(major)
        codec = Self.codecName(major: major, subtype: subtype)
        switch subtype {
        case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8), Int32(SF_FORMAT_PCM_16): nativeCommonFormat = .int16
        default: nativeCommonFormat = .float32
        }
    }

    deinit { close() }

    /// libsndfile's callbacks into the cursor passed as `user_data`.
    private static var virtualIO: SF_VIRTUAL_IO {
        SF_VIRTUAL_IO(
            get_filelen: { user in ByteSourceCursor.from(user).reader.size },
            seek: { offset, whence, user in ByteSourceCursor.from(user).seek(offset, whence: whence) },
            read: { pointer, count, user in
                // An error reads as the end (libsndfile divides a negative count); the decoder throws the cursor's error.
                sf_count_t(max(0, ByteSourceCursor.from(user).read(pointer, count: Int(clamping: max(0, count)))))
            },
            write: nil,
            tell: { user in ByteSourceCursor.from(user).position })
    }

    func close() {
        guard let handle else { return }
        self.handle = nil
        sf_close(handle)
    }

    private func open(_ operation: String) throws -> OpaquePointer {
        guard let handle else {
            throw BackbeatError(.readFailed, operation: operation, url: url, reason: "decoder is closed")
        }
        return handle
    }

    func readFloats(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        let handle = try open("sf_readf_float")
        let n = Int(sf_readf_float(handle, buffer, sf_count_t(frames)))
        try checkRead(handle, n, "sf_readf_float")
        return n
    }

    func readInt16(into buffer: UnsafeMutablePointer<Int16>, frames: Int) throws -> Int {
        let handle = try open("sf_readf_short")
        let n = Int(sf_readf_short(handle, buffer, sf_count_t(frames)))
        try checkRead(handle, n, "sf_readf_short")
        return n
    }

    private func checkRead(_ handle: OpaquePointer, _ n: Int, _ operation: String) throws {
        if n <= 0 {
            if let error = cursor.error { throw error }
            let code = sf_error(handle)
            if code != 0 {
                throw BackbeatError(
                    .corruptFile, operation: operation, url: url, reason: String(cString: sf_strerror(handle)))
            }
        }
        position += Int64(max(0, n))
    }

    func seek(toFrame frame: Int64) throws {
        let handle = try open("sf_seek")
        let target = max(0, min(frame, frameCount))
        let result = sf_seek(handle, sf_count_t(target), SEEK_SET)
        guard result >= 0 else {
            if let error = cursor.error { throw error }
            throw BackbeatError(
                .corruptFile, operation: "sf_seek", url: url, reason: String(cString: sf_strerror(handle)))
        }
        position = Int64(result)
    }

    func readTags() -> VorbisComments.Reading {
        if major == Int32(SF_FORMAT_FLAC), let reading = FlacMetadata.read(cursor.reader) { return reading }
        guard let handle else { return .init() }
        func string(_ type: Int32) -> String? {
            guard let c = sf_get_string(handle, type) else { return nil }
            let s = String(cString: c).trimmingWhitespace()
            return s.isEmpty ? nil : s
        }
        var tags = AudioTags()
        tags.title = string(Int32(SF_STR_TITLE))
        tags.artist = string(Int32(SF_STR_ARTIST))
        tags.albumTitle = string(Int32(SF_STR_ALBUM))
        tags.genre = string(Int32(SF_STR_GENRE))
        tags.date = string(Int32(SF_STR_DATE))
        tags.trackNumber = VorbisComments.leadingInteger(string(Int32(SF_STR_TRACKNUMBER)))
        var reading = VorbisComments.Reading()
        reading.tags = tags
        return reading
    }

    static func containerName(_ major: Int32) -> String {
        switch major {
        case Int32(SF_FORMAT_WAV): "WAV"
        case Int32(SF_FORMAT_WAVEX): "WAV"
        case Int32(SF_FORMAT_RF64): "RF64"
        case Int32(SF_FORMAT_W64): "W64"
        case Int32(SF_FORMAT_AIFF): "AIFF"
        case Int32(SF_FORMAT_CAF): "CAF"
        case Int32(SF_FORMAT_FLAC): "FLAC"
        case Int32(SF_FORMAT_OGG): "Ogg"
        case Int32(SF_FORMAT_MPEG): "MP3"
        case Int32(SF_FORMAT_AU): "AU"
        default: formatInfoName(major) ?? "unknown"
        }
    }

    static func codecName(major: Int32, subtype: Int32) -> String {
        let flac = major == Int32(SF_FORMAT_FLAC)
        switch subtype {
        case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8): return flac ? "FLAC 8-bit" : "PCM 8-bit"
        case Int32(SF_FORMAT_PCM_16): return flac ? "FLAC 16-bit" : "PCM 16-bit"
        case Int32(SF_FORMAT_PCM_24): return flac ? "FLAC 24-bit" : "PCM 24-bit"
        case Int32(SF_FORMAT_PCM_32): return "PCM 32-bit"
        case Int32(SF_FORMAT_FLOAT): return "PCM 32-bit float"
        case Int32(SF_FORMAT_DOUBLE): return "PCM 64-bit float"
        case Int32(SF_FORMAT_VORBIS): return "Vorbis"
        case Int32(SF_FORMAT_OPUS): return "Opus"
        case Int32(SF_FORMAT_MPEG_LAYER_I): return "MP1"
        case Int32(SF_FORMAT_MPEG_LAYER_II): return "MP2"
        case Int32(SF_FORMAT_MPEG_LAYER_III): return "MP3"
        case Int32(SF_FORMAT_ULAW): return "µ-law"
        case Int32(SF_FORMAT_ALAW): return "A-law"
        case Int32(SF_FORMAT_IMA_ADPCM): return "IMA ADPCM"
        case Int32(SF_FORMAT_MS_ADPCM): return "MS ADPCM"
        case Int32(SF_FORMAT_ALAC_16), Int32(SF_FORMAT_ALAC_20), Int32(SF_FORMAT_ALAC_24), Int32(SF_FORMAT_ALAC_32):
            return "ALAC"
        default: return formatInfoName(subtype) ?? "unknown"
        }
    }

    /// libsndfile's own name for a format code.
    private static func formatInfoName(_ format: Int32) -> String? {
        var info = SF_FORMAT_INFO()
        info.format = format
        guard sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0,
            let name = info.name
        else { return nil }
        return String(cString: name)
    }
}
