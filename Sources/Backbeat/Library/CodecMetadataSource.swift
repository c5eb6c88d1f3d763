import CSndfile
import CVorbis
import Foundation

/// The scanner's tag source until the Media layer's asset API is wired in:
/// libvorbisfile for Ogg Vorbis (Vorbis comments, exact length) and libsndfile
/// for WAV, AIFF, FLAC and the other formats it reads (its string chunks).
/// The C libraries do the parsing; this only maps their answers.
struct CodecMetadataSource: MediaMetadataSource {
    static let vorbisExtensions: Set<String> = ["ogg", "oga"]
    static let sndfileExtensions: Set<String> = ["wav", "wave", "aif", "aiff", "aifc", "flac", "au", "caf", "w64"]

    func handles(pathExtension: String) -> Bool {
        Self.vorbisExtensions.contains(pathExtension) || Self.sndfileExtensions.contains(pathExtension)
    }

    func metadata(for url: URL) throws -> ScannedMetadata {
        if Self.vorbisExtensions.contains(url.pathExtension.lowercased()) {
            return try withVorbisFile(url) { vf in
                var metadata = ScannedMetadata()
                if let comment = ov_comment(vf, -1), let strings = comment.pointee.user_comments,
                   let lengths = comment.pointee.comment_lengths {
                    for i in 0..<Int(max(0, comment.pointee.comments)) {
                        guard let entry = strings[i] else { continue }
                        let length = Int(max(0, lengths[i]))
                        let bytes = UnsafeRawBufferPointer(start: entry, count: length)
                        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")), equals < 64 else { continue }
                        let key = String(decoding: bytes[..<equals], as: UTF8.self)
                        metadata.apply(key: key, value: Array(bytes[(equals + 1)...]))
                    }
                }
                if let info = ov_info(vf, -1), info.pointee.rate > 0 {
                    let frames = ov_pcm_total(vf, -1)
                    if frames > 0 { metadata.duration = MediaTime(frames: frames, sampleRate: Int(info.pointee.rate)) }
                }
                return metadata
            }
        }
        return try withSoundFile(url) { handle, info in
            var metadata = ScannedMetadata()
            let fields: [(Int32, String)] = [
                (Int32(SF_STR_TITLE), "TITLE"), (Int32(SF_STR_ARTIST), "ARTIST"), (Int32(SF_STR_ALBUM), "ALBUM"),
                (Int32(SF_STR_GENRE), "GENRE"), (Int32(SF_STR_TRACKNUMBER), "TRACKNUMBER"), (Int32(SF_STR_DATE), "DATE"),
            ]
            for (field, key) in fields {
                guard let cString = sf_get_string(handle, field) else { continue }
                metadata.apply(key: key, value: Array(UnsafeRawBufferPointer(start: cString, count: strlen(cString))))
            }
            if info.samplerate > 0, info.frames > 0 {
                metadata.duration = MediaTime(frames: Int64(info.frames), sampleRate: Int(info.samplerate))
            }
            return metadata
        }
    }

    func decode(_ url: URL, body: (AudioFormat, [Float]) throws -> Bool) throws {
        let chunkFrames = 4096
        if Self.vorbisExtensions.contains(url.pathExtension.lowercased()) {
            try withVorbisFile(url) { vf in
                guard let info = ov_info(vf, -1), info.pointee.rate > 0, info.pointee.channels > 0 else {
                    throw BackbeatError(.unreadableFile, operation: "ov_info", url: url, reason: "no stream information")
                }
                let channels = Int(info.pointee.channels)
                let format = AudioFormat(sampleRate: Int(info.pointee.rate), channelCount: channels)
                var section: Int32 = 0
                var chunk = [Float]()
                while true {
                    var planes: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
                    let got = ov_read_float(vf, &planes, Int32(chunkFrames), &section)
                    if got == 0 { return }
                    if got < 0 {
                        throw BackbeatError(.unreadableFile, operation: "ov_read_float", url: url, reason: "corrupt stream (error \(got))")
                    }
                    guard let planes, channels == Int(ov_info(vf, -1)?.pointee.channels ?? 0) else {
                        throw BackbeatError(.unreadableFile, operation: "ov_read_float", url: url, reason: "channel count changed mid-stream")
                    }
                    chunk.removeAll(keepingCapacity: true)
                    chunk.reserveCapacity(Int(got) * channels)
                    for f in 0..<Int(got) { for c in 0..<channels { chunk.append(planes[c]![f]) } }
                    guard try body(format, chunk) else { return }
                }
            }
            return
        }
        try withSoundFile(url) { handle, info in
            let channels = Int(info.channels)
            let format = AudioFormat(sampleRate: Int(info.samplerate), channelCount: channels)
            var chunk = [Float](repeating: 0, count: chunkFrames * channels)
            while true {
                let got = chunk.withUnsafeMutableBufferPointer { sf_readf_float(handle, $0.baseAddress, sf_count_t(chunkFrames)) }
                if got <= 0 { return }
                guard try body(format, Array(chunk[..<(Int(got) * channels)])) else { return }
            }
        }
    }

    private func withVorbisFile<T>(_ url: URL, _ body: (UnsafeMutablePointer<OggVorbis_File>) throws -> T) throws -> T {
        let vf = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
        defer { vf.deallocate() }
        let status = ov_fopen(url.path, vf)
        guard status == 0 else {
            let reason = switch status {
            case OV_ENOTVORBIS: "not Ogg Vorbis"
            case OV_EBADHEADER: "bad Vorbis header"
            case OV_EREAD: "read error"
            default: "cannot open (error \(status))"
            }
            throw BackbeatError(.unreadableFile, operation: "ov_fopen", url: url, reason: reason)
        }
        defer { ov_clear(vf) }
        return try body(vf)
    }

    private func withSoundFile<T>(_ url: URL, _ body: (OpaquePointer, SF_INFO) throws -> T) throws -> T {
        var info = SF_INFO()
        guard let handle = sf_open(url.path, Int32(SFM_READ), &info) else {
            throw BackbeatError(.unreadableFile, operation: "sf_open", url: url, reason: String(cString: sf_strerror(nil)))
        }
        defer { sf_close(handle) }
        guard info.channels > 0, info.channels <= 8, info.samplerate > 0 else {
            throw BackbeatError(.unreadableFile, operation: "sf_open", url: url,
                                reason: "\(info.channels) channels at \(info.samplerate) Hz is not playable")
        }
        return try body(handle, info)
    }
}
