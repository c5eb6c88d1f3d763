import BackbeatSupport
import CVorbis

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

/// Decodes Ogg Vorbis through vorbisfile: streaming, sample-accurate seeking.
///
/// Others may rely on: the ``AudioDecoder`` contract; `readInt16` returns
/// exactly the samples `oggdec` writes for the same file (both are libvorbis's
/// `ov_read`, 16-bit little-endian signed); `readFloats` is libvorbis's float
/// output, unclipped. Chained streams play through if every link keeps the
/// first link's channel count (a change throws `.unsupportedCodec`).
final class VorbisDecoder: AudioDecoder {
    let url: URL
    let sampleRate: Int
    let channelCount: Int
    let frameCount: Int64
    let container = "Ogg"
    let codec = "Vorbis"
    let nativeCommonFormat = AudioFormat.CommonFormat.float32
    private(set) var position: Int64 = 0
    private var file: UnsafeMutablePointer<OggVorbis_File>?
    private var checkedLink: Int32 = 0

    /// Keeps the bytes' position for vorbisfile's callbacks; lives as long as `file`.
    private let cursor: ByteSourceCursor

    /// Opens `source` through vorbisfile's callbacks (`ov_open_callbacks`).
    init(source: ByteSourceReader) throws {
        let url = source.url
        self.url = url
        let cursor = ByteSourceCursor(source)
        self.cursor = cursor
        let file = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
        let status = ov_open_callbacks(Unmanaged.passUnretained(cursor).toOpaque(), file, nil, 0, Self.callbacks)
        guard status == 0 else {
            file.deallocate()  // ov_open_callbacks has already cleared the struct
            throw cursor.error(or: Self.error(status, operation: "ov_open_callbacks", url: url))
        }
        guard let info = ov_info(file, -1), info.pointee.channels > 0, info.pointee.rate > 0 else {
            ov_clear(file)
            file.deallocate()
            throw BackbeatError(
                .corruptFile, operation: "ov_info", url: url, reason: "stream has no valid Vorbis info header")
        }
        guard ov_seekable(file) != 0 else {
            ov_clear(file)
            file.deallocate()
            throw BackbeatError(.corruptFile, operation: "ov_seekable", url: url, reason: "stream is not seekable")
        }
        let total = ov_pcm_total(file, -1)
        guard total >= 0 else {
            ov_clear(file)
            file.deallocate()
            throw cursor.error(or: Self.error(Int32(truncatingIfNeeded: total), operation: "ov_pcm_total", url: url))
        }
        do {
            try DecoderLimits.check(
                sampleRate: Int(info.pointee.rate), channels: Int(info.pointee.channels), frames: total,
                size: source.size, url: url, operation: "ov_info")
        } catch {
            ov_clear(file)
            file.deallocate()
            throw error
        }
        self.file = file
        self.sampleRate = Int(info.pointee.rate)
        self.channelCount = Int(info.pointee.channels)
        self.frameCount = total
    }

    deinit { close() }

    /// vorbisfile's callbacks into the cursor passed as the data source. A
    /// failed read returns 0 with `errno` set, which vorbisfile reports as
    /// `OV_EREAD`; the decoder then throws the cursor's error.
    private static var callbacks: ov_callbacks {
        ov_callbacks(
            read_func: { pointer, size, count, user in
                let (bytes, overflow) = size.multipliedReportingOverflow(by: count)
                let n = ByteSourceCursor.from(user).read(pointer, count: overflow ? Int.max : bytes)
                if n < 0 {
                    errno = EIO
                    return 0
                }
                return size == 0 ? 0 : n / size
            },
            seek_func: { user, offset, whence in ByteSourceCursor.from(user).seek(offset, whence: whence) < 0 ? -1 : 0
            },
            close_func: nil,
            tell_func: { user in Int(ByteSourceCursor.from(user).position) })
    }

    func close() {
        guard let file else { return }
        self.file = nil
        ov_clear(file)
        file.deallocate()
    }

    private func handle(_ operation: String) throws -> UnsafeMutablePointer<OggVorbis_File> {
        guard let file else {
            throw BackbeatError(.readFailed, operation: operation, url: url, reason: "decoder is closed")
        }
        return file
    }

    /// Throws if a chained stream's new link changes the channel count.
    private func checkLink(_ link: Int32, _ file: UnsafeMutablePointer<OggVorbis_File>) throws {
        guard link != checkedLink else { return }
        checkedLink = link
        guard let info = ov_info(file, link), Int(info.pointee.channels) == channelCount else {
            throw BackbeatError(
                .unsupportedCodec, operation: "ov_read", url: url,
                reason: "chained Ogg stream changes its channel count at link \(link)")
        }
    }

    func readFloats(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        let file = try handle("ov_read_float")
        let channels = channelCount
        var done = 0
        while done < frames {
            var pcm: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
            var link: Int32 = 0
            let n = Int(ov_read_float(file, &pcm, Int32(clamping: frames - done), &link))
            if n == 0 { break }
            if n == Int(OV_HOLE) { continue }  // a gap in the data: vorbisfile resynchronises on the next page
            if n < 0 { throw cursor.error(or: Self.error(Int32(n), operation: "ov_read_float", url: url)) }
            try checkLink(link, file)
            guard let pcm else { break }
            let out = buffer + done * channels
            if channels == 2, let left = pcm[0], let right = pcm[1] {
                for i in 0..<n {
                    out[2 * i] = left[i]
                    out[2 * i + 1] = right[i]
                }
            } else {
                for c in 0..<channels {
                    guard let plane = pcm[c] else { continue }
                    var o = out + c
                    for i in 0..<n {
                        o.pointee = plane[i]
                        o += channels
                    }
                }
            }
            done += n
        }
        position += Int64(done)
        return done
    }

    func readInt16(into buffer: UnsafeMutablePointer<Int16>, frames: Int) throws -> Int {
        let file = try handle("ov_read")
        let bytesPerFrame = 2 * channelCount
        var doneBytes = 0
        let wanted = frames * bytesPerFrame
        let raw = UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: CChar.self)
        while doneBytes < wanted {
            var link: Int32 = 0
            let n = Int(ov_read(file, raw + doneBytes, Int32(clamping: wanted - doneBytes), 0, 2, 1, &link))
            if n == 0 { break }
            if n == Int(OV_HOLE) { continue }
            if n < 0 { throw cursor.error(or: Self.error(Int32(n), operation: "ov_read", url: url)) }
            try checkLink(link, file)
            doneBytes += n
        }
        #if _endian(big)
        for i in 0..<doneBytes / 2 { buffer[i] = Int16(littleEndian: buffer[i]) }
        #endif
        let done = doneBytes / bytesPerFrame
        position += Int64(done)
        return done
    }

    func seek(toFrame frame: Int64) throws {
        let file = try handle("ov_pcm_seek")
        let target = max(0, min(frame, frameCount))
        let status = ov_pcm_seek(file, target)
        guard status == 0 else { throw cursor.error(or: Self.error(status, operation: "ov_pcm_seek", url: url)) }
        position = target
    }

    func readTags() -> VorbisComments.Reading {
        guard let file, let vc = ov_comment(file, -1) else { return .init() }
        var comments: [[UInt8]] = []
        let count = Int(vc.pointee.comments)
        for i in 0..<count {
            guard let text = vc.pointee.user_comments[i] else { continue }
            let length = Int(vc.pointee.comment_lengths[i])
            comments.append(Array(UnsafeRawBufferPointer(start: text, count: length)))
        }
        return VorbisComments.read(comments)
    }

    /// Maps a vorbisfile status to a typed error.
    static func error(_ status: Int32, operation: String, url: URL) -> BackbeatError {
        switch status {
        case OV_EREAD: BackbeatError(.readFailed, operation: operation, url: url, reason: "read from the file failed")
        case OV_ENOTVORBIS: BackbeatError(.corruptFile, operation: operation, url: url, reason: "not Vorbis data")
        case OV_EVERSION:
            BackbeatError(.unsupportedCodec, operation: operation, url: url, reason: "unsupported Vorbis version")
        case OV_EBADHEADER: BackbeatError(.corruptFile, operation: operation, url: url, reason: "invalid Vorbis header")
        case OV_EBADLINK:
            BackbeatError(
                .corruptFile, operation: operation, url: url, reason: "invalid stream section or corrupt link")
        case OV_ENOSEEK: BackbeatError(.corruptFile, operation: operation, url: url, reason: "stream is not seekable")
        case OV_EFAULT:
            BackbeatError(.corruptFile, operation: operation, url: url, reason: "internal decoder fault (corrupt data)")
        case OV_EINVAL: BackbeatError(.corruptFile, operation: operation, url: url, reason: "invalid data or request")
        default: BackbeatError(.corruptFile, operation: operation, url: url, reason: "vorbisfile error \(status)")
        }
    }
}
