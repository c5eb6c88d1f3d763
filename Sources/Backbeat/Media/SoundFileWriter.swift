import CSndfile
import Foundation

/// Writes PCM to a sound file through libsndfile, safely: samples go to a
/// hidden temporary file beside the target, renamed into place by
/// ``finish()``. A writer that is cancelled, fails or is dropped unfinished
/// removes its temporary file, so no partial output is ever left behind.
final class SoundFileWriter {
    /// Containers and sample encodings libsndfile writes.
    struct FileType: Sendable, Equatable {
        let major: Int32
        let subtype: Int32
        static let wavFloat = FileType(major: Int32(SF_FORMAT_WAV), subtype: Int32(SF_FORMAT_FLOAT))
        static let wav16 = FileType(major: Int32(SF_FORMAT_WAV), subtype: Int32(SF_FORMAT_PCM_16))
    }

    let url: URL
    let temporaryURL: URL
    let channelCount: Int
    private var handle: OpaquePointer?
    private(set) var framesWritten: Int64 = 0

    /// Opens the temporary file. Throws if the directory is missing, or if
    /// `url` exists and `overwrite` is false.
    init(url: URL, type: FileType, sampleRate: Int, channelCount: Int, overwrite: Bool) throws {
        self.url = url
        self.channelCount = channelCount
        let directory = url.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw BackbeatError(.writeFailed, operation: "open", url: url, reason: "directory does not exist")
        }
        if !overwrite, FileManager.default.fileExists(atPath: url.path) {
            throw BackbeatError(.fileExists, operation: "open", url: url, reason: "use overwrite to replace it")
        }
        temporaryURL = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).partial")
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = type.major | type.subtype
        guard let handle = sf_open(temporaryURL.path, Int32(SFM_WRITE), &info) else {
            let reason = String(cString: sf_strerror(nil))
            try? FileManager.default.removeItem(at: temporaryURL)
            throw BackbeatError(.writeFailed, operation: "sf_open", url: url, reason: reason)
        }
        self.handle = handle
    }

    deinit { cancel() }

    /// Appends interleaved Float32 frames.
    func write(_ samples: ArraySlice<Float>) throws {
        guard let handle else { throw BackbeatError(.writeFailed, operation: "sf_writef_float", url: url, reason: "writer is closed") }
        let frames = samples.count / channelCount
        let written = samples.withUnsafeBufferPointer { sf_writef_float(handle, $0.baseAddress, sf_count_t(frames)) }
        guard written == frames else {
            let reason = String(cString: sf_strerror(handle))
            cancel()
            throw BackbeatError(.writeFailed, operation: "sf_writef_float", url: url, reason: reason)
        }
        framesWritten += Int64(frames)
    }

    /// Closes the file and moves it into place.
    func finish() throws {
        guard let handle else { return }
        self.handle = nil
        let status = sf_close(handle)
        do {
            guard status == 0 else {
                throw BackbeatError(.writeFailed, operation: "sf_close", url: url, reason: String(cString: sf_error_number(status)))
            }
            if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
            try FileManager.default.moveItem(at: temporaryURL, to: url)
        } catch {
            try? FileManager.default.removeItem(at: temporaryURL)
            throw error as? BackbeatError ?? BackbeatError(.writeFailed, operation: "rename", url: url, reason: "\(error)")
        }
    }

    /// Abandons the file; nothing is left on disk.
    func cancel() {
        guard let handle else { return }
        self.handle = nil
        sf_close(handle)
        try? FileManager.default.removeItem(at: temporaryURL)
    }
}
