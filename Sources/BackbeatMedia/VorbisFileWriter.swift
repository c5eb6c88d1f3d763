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

/// Encodes Ogg Vorbis through vorbisenc (VBR at a quality), with Vorbis
/// comments including METADATA_BLOCK_PICTURE artwork. Like
/// ``SoundFileWriter`` it writes a hidden temporary file renamed by
/// ``finish()`` and removed on cancel, failure or drop.
final class VorbisFileWriter {
    let url: URL
    let channelCount: Int
    private let output: OutputFile
    private var file: UnsafeMutablePointer<FILE>?
    private let info: UnsafeMutablePointer<vorbis_info>
    private let comment: UnsafeMutablePointer<vorbis_comment>
    private let dsp: UnsafeMutablePointer<vorbis_dsp_state>
    private let block: UnsafeMutablePointer<vorbis_block>
    private let stream: UnsafeMutablePointer<ogg_stream_state>
    private var encoderReady = false
    private(set) var framesWritten: Int64 = 0

    /// Opens the temporary file and writes the three Vorbis headers.
    ///
    /// - Parameter quality: VBR quality from -0.1 (smallest) to 1 (best).
    init(url: URL, sampleRate: Int, channelCount: Int, quality: Double, tags: AudioTags, overwrite: Bool) throws {
        self.url = url
        self.channelCount = channelCount
        output = try OutputFile(url: url, overwrite: overwrite)
        // From here every stored property is set, so a throw runs deinit, which frees these.
        info = .allocate(capacity: 1)
        comment = .allocate(capacity: 1)
        dsp = .allocate(capacity: 1)
        block = .allocate(capacity: 1)
        stream = .allocate(capacity: 1)
        vorbis_info_init(info)
        vorbis_comment_init(comment)
        let q = Float(min(1, max(-0.1, quality)))
        let status = vorbis_encode_init_vbr(info, Int(channelCount), Int(sampleRate), q)
        guard status == 0 else {
            vorbis_comment_clear(comment)
            vorbis_info_clear(info)
            throw BackbeatError(
                .unsupportedFormat, operation: "vorbis_encode_init_vbr", url: url,
                reason: "Vorbis cannot encode \(channelCount) channels at \(sampleRate) Hz (error \(status))")
        }
        for (key, value) in VorbisComments.comments(for: tags) {
            vorbis_comment_add_tag(comment, key, value)
        }
        vorbis_analysis_init(dsp, info)
        vorbis_block_init(dsp, block)
        ogg_stream_init(stream, Int32(bitPattern: UInt32.random(in: 1...UInt32.max)))
        encoderReady = true

        guard let file = fopen(output.temporaryURL.path, "wb") else {
            let reason = String(cString: strerror(errno))
            clear()
            throw BackbeatError(.writeFailed, operation: "fopen", url: url, reason: reason)
        }
        self.file = file

        var header = ogg_packet()
        var headerComment = ogg_packet()
        var headerCode = ogg_packet()
        vorbis_analysis_headerout(dsp, comment, &header, &headerComment, &headerCode)
        ogg_stream_packetin(stream, &header)
        ogg_stream_packetin(stream, &headerComment)
        ogg_stream_packetin(stream, &headerCode)
        do {
            // The headers end on their own page, so audio starts on a fresh one (the spec asks for it).
            var page = ogg_page()
            while ogg_stream_flush(stream, &page) != 0 { try writePage(&page) }
        } catch {
            cancel()
            throw error
        }
    }

    deinit {
        cancel()
        deallocate()
    }

    private func deallocate() {
        info.deallocate()
        comment.deallocate()
        dsp.deallocate()
        block.deallocate()
        stream.deallocate()
    }

    /// Appends interleaved Float32 frames.
    func write(_ samples: ArraySlice<Float>) throws {
        guard file != nil else {
            throw BackbeatError(.writeFailed, operation: "vorbis_analysis", url: url, reason: "writer is closed")
        }
        let channels = channelCount
        let total = samples.count / channels
        var done = 0
        try samples.withUnsafeBufferPointer { input in
            guard let base = input.baseAddress else { return }
            while done < total {
                let n = min(4096, total - done)
                guard let planes = vorbis_analysis_buffer(dsp, Int32(n)) else {
                    throw BackbeatError(
                        .writeFailed, operation: "vorbis_analysis_buffer", url: url,
                        reason: "encoder refused the buffer")
                }
                let source = base + done * channels
                for c in 0..<channels {
                    guard let plane = planes[c] else { continue }
                    for i in 0..<n { plane[i] = source[i * channels + c] }
                }
                vorbis_analysis_wrote(dsp, Int32(n))
                try drain()
                done += n
            }
        }
        framesWritten += Int64(total)
    }

    /// Moves encoded packets into pages and pages into the file.
    private func drain() throws {
        var packet = ogg_packet()
        var page = ogg_page()
        while vorbis_analysis_blockout(dsp, block) == 1 {
            vorbis_analysis(block, nil)
            vorbis_bitrate_addblock(block)
            while vorbis_bitrate_flushpacket(dsp, &packet) == 1 {
                ogg_stream_packetin(stream, &packet)
                while ogg_stream_pageout(stream, &page) != 0 { try writePage(&page) }
            }
        }
    }

    private func writePage(_ page: inout ogg_page) throws {
        guard let file else { return }
        let headerOK = fwrite(page.header, 1, page.header_len, file) == page.header_len
        let bodyOK = fwrite(page.body, 1, page.body_len, file) == page.body_len
        guard headerOK, bodyOK else {
            let reason = String(cString: strerror(errno))
            cancel()
            throw BackbeatError(.writeFailed, operation: "fwrite", url: url, reason: reason)
        }
    }

    /// Ends the stream (the last page carries end-of-stream), closes and moves the file into place.
    func finish() throws {
        guard file != nil else { return }
        do {
            vorbis_analysis_wrote(dsp, 0)
            try drain()
            var page = ogg_page()
            while ogg_stream_flush(stream, &page) != 0 { try writePage(&page) }
        } catch {
            cancel()
            throw error
        }
        guard let file else { return }
        self.file = nil
        let closed = fclose(file) == 0
        clear()
        guard closed else {
            output.discard()
            throw BackbeatError(.writeFailed, operation: "fclose", url: url, reason: String(cString: strerror(errno)))
        }
        try output.commit()
    }

    /// Abandons the file; nothing is left on disk.
    func cancel() {
        if let file {
            self.file = nil
            fclose(file)
            output.discard()
        }
        clear()
    }

    private func clear() {
        guard encoderReady else { return }
        encoderReady = false
        ogg_stream_clear(stream)
        vorbis_block_clear(block)
        vorbis_dsp_clear(dsp)
        vorbis_comment_clear(comment)
        vorbis_info_clear(info)
    }
}
