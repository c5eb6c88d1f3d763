import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Looks at a file's bytes before a C library does, to give precise errors
/// where libraries are lenient: a truncated Ogg stream, a WAV whose header
/// claims more data than the file holds, an Ogg stream of a codec we do not
/// decode, or bytes that are no known container at all.
struct ContainerProbe {
    enum Kind: Equatable {
        case oggVorbis
        case ogg(codec: String)
        case wave
        case flac
        case other
    }

    let source: ByteSourceReader
    var url: URL { source.url }
    var size: Int64 { source.size }
    let head: [UInt8]
    let kind: Kind

    /// Reads the first 4 KiB.
    ///
    /// - Throws: the source's typed errors (a read that fails or ends early).
    init(source: ByteSourceReader) throws {
        self.source = source
        head = try source.bytes(at: 0, count: 4096)
        kind = Self.classify(head)
    }

    private static func classify(_ b: [UInt8]) -> Kind {
        func matches(_ s: String, at offset: Int = 0) -> Bool {
            let bytes = Array(s.utf8)
            return b.count >= offset + bytes.count && Array(b[offset..<offset + bytes.count]) == bytes
        }
        if matches("OggS") {
            guard b.count >= 27 else { return .ogg(codec: "unknown") }
            let segments = Int(b[26])
            let start = 27 + segments
            guard b.count > start else { return .ogg(codec: "unknown") }
            let packet = Array(b[start..<min(b.count, start + 8)])
            if packet.count >= 7, packet[0] == 1, Array(packet[1..<7]) == Array("vorbis".utf8) { return .oggVorbis }
            if packet.starts(with: Array("OpusHead".utf8)) { return .ogg(codec: "Opus") }
            if packet.count >= 5, packet[0] == 0x7F, Array(packet[1..<5]) == Array("FLAC".utf8) {
                return .ogg(codec: "FLAC")
            }
            if packet.starts(with: Array("Speex   ".utf8)) { return .ogg(codec: "Speex") }
            if packet.count >= 7, packet[0] == 0x80, Array(packet[1..<7]) == Array("theora".utf8) {
                return .ogg(codec: "Theora")
            }
            return .ogg(codec: "unknown")
        }
        if (matches("RIFF") || matches("RF64")) && matches("WAVE", at: 8) { return .wave }
        if matches("fLaC") { return .flac }
        return .other
    }

    /// Throws `.truncatedFile` unless the file ends with a complete Ogg page
    /// that carries the end-of-stream flag.
    func checkOggEnd() throws {
        let window = min(size, 65_536 + 282)
        let tail = try source.bytes(at: size - window, count: Int(window))
        let base = size - Int64(tail.count)
        var i = tail.count - 4
        while i >= 0 {
            if tail[i] == 0x4F, tail[i + 1] == 0x67, tail[i + 2] == 0x67, tail[i + 3] == 0x53,
                i + 5 < tail.count, tail[i + 4] == 0, tail[i + 5] & 0xF8 == 0
            {
                // The last plausible page header: does the page end exactly at the end of the file?
                guard i + 27 <= tail.count else { throw truncated("the last Ogg page header is cut off") }
                let segments = Int(tail[i + 26])
                guard i + 27 + segments <= tail.count else {
                    throw truncated("the last Ogg page's segment table is cut off")
                }
                let body = tail[(i + 27)..<(i + 27 + segments)].reduce(0) { $0 + Int($1) }
                let end = base + Int64(i + 27 + segments + body)
                if end > size { throw truncated("the last Ogg page needs \(end - size) more bytes") }
                if end < size {
                    throw BackbeatError(
                        .corruptFile, operation: "open", url: url,
                        reason: "\(size - end) bytes of garbage after the last Ogg page")
                }
                guard tail[i + 5] & 0x04 != 0 else { throw truncated("the stream stops without an end-of-stream page") }
                return
            }
            i -= 1
        }
        throw BackbeatError(.corruptFile, operation: "open", url: url, reason: "no Ogg page near the end of the file")
    }

    private func truncated(_ reason: String) -> BackbeatError {
        BackbeatError(.truncatedFile, operation: "open", url: url, reason: reason)
    }

    /// WAVE format tags libsndfile decodes: PCM, MS ADPCM, IEEE float, A-law,
    /// µ-law, IMA ADPCM, GSM 6.10, G.721, MPEG, MPEG layer 3, extensible.
    static let decodableWaveTags: Set<UInt16> = [
        0x0001, 0x0002, 0x0003, 0x0006, 0x0007, 0x0011, 0x0031, 0x0040, 0x0050, 0x0055, 0xFFFE,
    ]
    static let waveTagNames: [UInt16: String] = [
        0x00FF: "AAC", 0x0161: "WMA", 0x0162: "WMA Pro", 0x2000: "AC-3", 0x0092: "Dolby AC-3 SPDIF",
    ]

    /// Throws `.unsupportedCodec` for a WAV codec libsndfile does not decode, and
    /// `.truncatedFile` when a WAV's RIFF or data chunk size claims
    /// more bytes than the file holds. Sizes of 0 or 0xFFFFFFFF (streamed
    /// WAVs) and RF64 files are not checked.
    func checkWave() throws {
        guard head.count >= 12, head.starts(with: Array("RIFF".utf8)) else { return }
        func le32(_ o: Int) -> UInt32 {
            UInt32(head[o]) | UInt32(head[o + 1]) << 8 | UInt32(head[o + 2]) << 16 | UInt32(head[o + 3]) << 24
        }
        let riffSize = le32(4)
        if riffSize != 0, riffSize != 0xFFFF_FFFF, Int64(riffSize) + 8 > size + 1 {
            throw truncated("the RIFF header claims \(Int64(riffSize) + 8) bytes but the file has \(size)")
        }
        var offset = 12
        while offset + 8 <= head.count {
            let id = String(decoding: head[offset..<offset + 4], as: UTF8.self)
            let chunk = le32(offset + 4)
            if id == "fmt ", offset + 10 <= head.count {
                let tag = UInt16(head[offset + 8]) | UInt16(head[offset + 9]) << 8
                if !Self.decodableWaveTags.contains(tag) {
                    let name = Self.waveTagNames[tag].map { " (\($0))" } ?? ""
                    throw BackbeatError(
                        .unsupportedCodec, operation: "open", url: url,
                        reason: "WAV codec 0x\(String(tag, radix: 16, uppercase: true))\(name) is not supported")
                }
            }
            if id == "data" {
                let available = size - Int64(offset + 8)
                if chunk != 0, chunk != 0xFFFF_FFFF, Int64(chunk) > available {
                    throw truncated("the data chunk claims \(chunk) bytes of audio but only \(available) follow")
                }
                return
            }
            offset += 8 + Int(chunk) + Int(chunk & 1)
        }
    }
}
