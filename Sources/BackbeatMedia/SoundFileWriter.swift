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

/// Writes PCM to a sound file through libsndfile, safely: samples go to a
/// hidden temporary file beside the target, renamed into place by
/// ``finish()``. A writer that is cancelled, fails or is dropped unfinished
/// removes its temporary file, so no partial output is ever left behind.
///
/// The same samples always give the same bytes: libsndfile's `PEAK` chunk,
/// which stamps the wall-clock time, is turned off, and float WAV, whose
/// libsndfile header `sox` warns about, is written by ``FloatWAVFile``.
package final class SoundFileWriter {
    /// Containers and sample encodings libsndfile writes.
    package struct FileType: Sendable, Equatable {
        let major: Int32
        let subtype: Int32
        package init(major: Int32, subtype: Int32) {
            self.major = major
            self.subtype = subtype
        }
        package static let wavFloat = FileType(major: Int32(SF_FORMAT_WAV), subtype: Int32(SF_FORMAT_FLOAT))
        static let wav16 = FileType(major: Int32(SF_FORMAT_WAV), subtype: Int32(SF_FORMAT_PCM_16))
        static let aiffFloat = FileType(major: Int32(SF_FORMAT_AIFF), subtype: Int32(SF_FORMAT_FLOAT))
        static let aiff16 = FileType(major: Int32(SF_FORMAT_AIFF), subtype: Int32(SF_FORMAT_PCM_16))
        static let cafFloat = FileType(major: Int32(SF_FORMAT_CAF), subtype: Int32(SF_FORMAT_FLOAT))
        static let caf16 = FileType(major: Int32(SF_FORMAT_CAF), subtype: Int32(SF_FORMAT_PCM_16))
        static let flac16 = FileType(major: Int32(SF_FORMAT_FLAC), subtype: Int32(SF_FORMAT_PCM_16))
        static let flac24 = FileType(major: Int32(SF_FORMAT_FLAC), subtype: Int32(SF_FORMAT_PCM_24))
        static let opus = FileType(major: Int32(SF_FORMAT_OGG), subtype: Int32(SF_FORMAT_OPUS))

        /// Whether samples are stored as 16-bit integers (written exactly from Int16).
        var isInt16: Bool { subtype == Int32(SF_FORMAT_PCM_16) }
    }

    let url: URL
    let channelCount: Int
    let type: FileType
    private let output: OutputFile
    private var handle: OpaquePointer?
    private var floatWAV: FloatWAVFile?
    private(set) var framesWritten: Int64 = 0

    /// Opens the temporary file. Throws if the directory is missing, or if
    /// `url` exists and `overwrite` is false.
    package convenience init(url: URL, type: FileType, sampleRate: Int, channelCount: Int, overwrite: Bool) throws {
        try self.init(
            url: url, type: type, sampleRate: sampleRate, channelCount: channelCount, overwrite: overwrite,
            tags: AudioTags())
    }

    /// Opens the temporary file and sets the tags libsndfile can store for this container.
    package init(url: URL, type: FileType, sampleRate: Int, channelCount: Int, overwrite: Bool, tags: AudioTags) throws
    {
        self.url = url
        self.channelCount = channelCount
        self.type = type
        output = try OutputFile(url: url, overwrite: overwrite)
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = type.major | type.subtype
        guard sf_format_check(&info) != 0 else {
            throw BackbeatError(
                .unsupportedFormat, operation: "sf_format_check", url: url,
                reason: "\(channelCount) channels at \(sampleRate) Hz cannot be written in this format")
        }
        if type == .wavFloat {
            floatWAV = try FloatWAVFile(output: output, sampleRate: sampleRate, channelCount: channelCount, tags: tags)
            return
        }
        guard let handle = sf_open(output.temporaryURL.path, Int32(SFM_WRITE), &info) else {
            let reason = String(cString: sf_strerror(nil))
            output.discard()
            throw BackbeatError(.writeFailed, operation: "sf_open", url: url, reason: reason)
        }
        self.handle = handle
        // A PEAK chunk records when it was written; without it, equal audio gives equal files.
        _ = sf_command(handle, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        // libsndfile stores strings before the audio, so they are set first.
        let strings: [(Int32, String?)] = [
            (Int32(SF_STR_TITLE), tags.title), (Int32(SF_STR_ARTIST), tags.artist),
            (Int32(SF_STR_ALBUM), tags.albumTitle),
            (Int32(SF_STR_GENRE), tags.genre), (Int32(SF_STR_DATE), tags.date),
            (Int32(SF_STR_TRACKNUMBER), tags.trackNumber.map(String.init)),
        ]
        for case let (key, value?) in strings { _ = sf_set_string(handle, key, value) }
    }

    deinit { cancel() }

    /// Appends interleaved Float32 frames.
    package func write(_ samples: ArraySlice<Float>) throws {
        if type.isInt16 { return try write(ReadPipeline.toInt16(Array(samples))[...]) }
        if let floatWAV {
            try floatWAV.write(samples)
            framesWritten = floatWAV.framesWritten
            return
        }
        guard let handle else {
            throw BackbeatError(.writeFailed, operation: "sf_writef_float", url: url, reason: "writer is closed")
        }
        let frames = samples.count / channelCount
        let written = samples.withUnsafeBufferPointer { sf_writef_float(handle, $0.baseAddress, sf_count_t(frames)) }
        try check(written, frames, "sf_writef_float")
    }

    /// Appends interleaved Int16 frames.
    package func write(_ samples: ArraySlice<Int16>) throws {
        // libsndfile's own scale from short to float, so either path writes the same file.
        if floatWAV != nil { return try write(samples.map { Float($0) / 32_768 }[...]) }
        guard let handle else {
            throw BackbeatError(.writeFailed, operation: "sf_writef_short", url: url, reason: "writer is closed")
        }
        let frames = samples.count / channelCount
        let written = samples.withUnsafeBufferPointer { sf_writef_short(handle, $0.baseAddress, sf_count_t(frames)) }
        try check(written, frames, "sf_writef_short")
    }

    private func check(_ written: sf_count_t, _ frames: Int, _ operation: String) throws {
        guard written == frames else {
            let reason = String(cString: sf_strerror(handle))
            cancel()
            throw BackbeatError(.writeFailed, operation: operation, url: url, reason: reason)
        }
        framesWritten += Int64(frames)
    }

    /// Closes the file and moves it into place.
    package func finish() throws {
        if let floatWAV {
            self.floatWAV = nil
            return try floatWAV.finish()
        }
        guard let handle else { return }
        self.handle = nil
        let status = sf_close(handle)
        guard status == 0 else {
            output.discard()
            throw BackbeatError(
                .writeFailed, operation: "sf_close", url: url, reason: String(cString: sf_error_number(status)))
        }
        try output.commit()
    }

    /// Abandons the file; nothing is left on disk.
    package func cancel() {
        floatWAV?.cancel()
        floatWAV = nil
        guard let handle else { return }
        self.handle = nil
        sf_close(handle)
        output.discard()
    }
}
