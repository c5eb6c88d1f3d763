import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns an asset into a new file, by preset or custom settings, like
/// `AVAssetExportSession` without its limits: any container Backbeat writes,
/// explicit rate, channels and sample type, or a byte-exact passthrough copy.
///
/// ```swift
/// let session = AssetExportSession(asset: asset, preset: .cdQuality)
/// try await session.export(to: url)
/// ```
/// ``status`` and ``progress`` can be read from any task while the export
/// runs; ``cancelExport()`` stops it and removes the partial file.
public final class AssetExportSession: Sendable {
    /// What the export produces.
    public enum Preset: Sendable, Hashable {
        /// CD-quality PCM: 44.1 kHz, 16-bit, stereo, interleaved (little-endian in WAV).
        /// Writes WAV, AIFF or CAF.
        case cdQuality
        /// A byte-exact copy of the source file, with no re-encode. The output's
        /// extension must name the source's container (or be one Backbeat does not write).
        case passthrough
        /// Ogg Vorbis at a VBR quality from -0.1 to 1, at the source's rate and channels.
        case oggVorbis(quality: Double)
        /// FLAC, lossless, 16-bit, at the source's rate and channels.
        case flac
        /// Custom settings; each nil keeps the source's value (Float32 for `commonFormat`
        /// unless the source is 16-bit). Any container; `quality` applies to Ogg Vorbis.
        case custom(sampleRate: Int?, channelCount: Int?, commonFormat: AudioFormat.CommonFormat?, quality: Double?)

        /// The preset for a command-line name: `cd`, `passthrough`, `vorbis` (quality 0.5) or `flac`.
        ///
        /// - Parameter name: `cd` (or `cdquality`), `passthrough`, `vorbis` (or `ogg`) or `flac`, case-insensitive; any other name gives nil.
        public init?(name: String) {
            switch name.lowercased() {
            case "cd", "cdquality": self = .cdQuality
            case "passthrough": self = .passthrough
            case "vorbis", "ogg": self = .oggVorbis(quality: 0.5)
            case "flac": self = .flac
            default: return nil
            }
        }
    }

    /// Where an export is in its life.
    public enum Status: Sendable, Equatable {
        /// Not started.
        case waiting
        /// Running.
        case exporting
        /// The file is complete and in place.
        case completed
        /// The export failed; see ``AssetExportSession/error``. Nothing was left behind.
        case failed
        /// ``AssetExportSession/cancelExport()`` stopped it. Nothing was left behind.
        case cancelled
    }

    /// The source.
    public let asset: AudioAsset
    /// What the export produces.
    public let preset: Preset
    /// The part of the source to export; nil exports all of it. Ignored by passthrough.
    public let timeRange: MediaTimeRange?

    private struct State {
        var status = Status.waiting
        var progress = 0.0
        var error: BackbeatError?
        var cancelRequested = false
    }
    private let state = LockedValueBox(State())

    /// Creates a session; nothing happens until ``export(to:as:overwrite:)``.
    ///
    /// - Parameters:
    ///   - asset: The audio to export.
    ///   - preset: The output's format and encoding.
    ///   - timeRange: The part of `asset` to export; nil exports all of it.
    public init(asset: AudioAsset, preset: Preset, timeRange: MediaTimeRange? = nil) {
        self.asset = asset
        self.preset = preset
        self.timeRange = timeRange
    }

    /// The session's state.
    public var status: Status { state.withLockedValue { $0.status } }
    /// How much is done, from 0 to 1.
    public var progress: Double { state.withLockedValue { $0.progress } }
    /// Why the export failed, when ``status`` is `.failed` or `.cancelled`.
    public var error: BackbeatError? { state.withLockedValue { $0.error } }

    /// Stops a running export (or one about to run); it throws `.cancelled` and leaves no file.
    public func cancelExport() {
        state.withLockedValue { $0.cancelRequested = true }
    }

    /// Exports to `url`, in `fileType` (nil: inferred from the extension).
    /// Task cancellation cancels the export too.
    ///
    /// - Parameters:
    ///   - url: The file to write.
    ///   - fileType: The container; nil infers it from `url`'s extension.
    ///   - overwrite: Whether an existing file at `url` is replaced.
    /// - Throws: ``BackbeatError``: the source's errors (`.fileNotFound`, `.corruptFile`, ...), `.fileExists`
    ///   without `overwrite`, `.writeFailed` for a missing directory, `.unsupportedFormat` when the preset
    ///   cannot produce that container, `.cancelled`. No partial file is left behind.
    public func export(to url: URL, as fileType: AudioFileType? = nil, overwrite: Bool = false) async throws {
        let started = state.withLockedValue { s -> Bool in
            guard s.status == .waiting else { return false }
            s.status = .exporting
            return true
        }
        guard started else {
            throw BackbeatError(.invalidArgument, operation: "export", url: url, reason: "a session exports once")
        }
        do {
            if preset == .passthrough {
                try copy(to: url, as: fileType, overwrite: overwrite)
            } else {
                try transcode(to: url, as: fileType, overwrite: overwrite)
            }
            state.withLockedValue {
                $0.status = .completed
                $0.progress = 1
            }
        } catch let error as BackbeatError {
            state.withLockedValue {
                $0.status = error.code == .cancelled ? .cancelled : .failed
                $0.error = error
            }
            throw error
        }
    }

    /// Starts the export in a new task and calls `completionHandler` when it ends, with nil on success.
    /// ``status``, ``progress`` and ``cancelExport()`` work as with ``export(to:as:overwrite:)``.
    ///
    /// - Parameters:
    ///   - url: The file to write.
    ///   - fileType: The container; nil infers it from `url`'s extension.
    ///   - overwrite: Whether an existing file at `url` is replaced.
    ///   - completionHandler: Called once, on a task's thread, with nil on success or the error.
    public func exportAsynchronously(
        to url: URL, as fileType: AudioFileType? = nil, overwrite: Bool = false,
        completionHandler: @escaping @Sendable (BackbeatError?) -> Void
    ) {
        Task {
            do {
                try await export(to: url, as: fileType, overwrite: overwrite)
                completionHandler(nil)
            } catch {
                completionHandler(
                    error as? BackbeatError
                        ?? BackbeatError(.writeFailed, operation: "export", url: url, reason: "\(error)"))
            }
        }
    }

    private func checkCancelled(_ url: URL) throws {
        if Task.isCancelled || state.withLockedValue({ $0.cancelRequested }) {
            throw BackbeatError(.cancelled, operation: "export", url: url, reason: "the export was cancelled")
        }
    }

    private func setProgress(_ p: Double) { state.withLockedValue { $0.progress = min(1, max(0, p)) } }

    /// The output's container: asked for, or from the extension.
    private func resolveType(_ fileType: AudioFileType?, _ url: URL) throws -> AudioFileType {
        if let fileType { return fileType }
        guard let type = AudioFileType(pathExtension: url.pathExtension) else {
            throw BackbeatError(
                .unsupportedFormat, operation: "export", url: url,
                reason:
                    "cannot tell the container from \"\(url.pathExtension)\" (use wav, aiff, caf, flac, ogg or opus)")
        }
        return type
    }

    private func transcode(to url: URL, as fileType: AudioFileType?, overwrite: Bool) throws {
        let type = try resolveType(fileType, url)
        let source = try asset.details()
        let native = source.format
        var format = AudioFormat(
            sampleRate: native.sampleRate, channelCount: native.channelCount,
            commonFormat: native.commonFormat, isInterleaved: true)
        var quality = 0.5
        var rateAskedFor = false
        switch preset {
        case .cdQuality:
            guard type.isPCM else {
                throw BackbeatError(
                    .unsupportedFormat, operation: "export", url: url,
                    reason: "the cd preset writes WAV, AIFF or CAF, not \(type)")
            }
            format = AudioFormat(sampleRate: 44_100, channelCount: 2, commonFormat: .int16)
        case .oggVorbis(let q):
            guard type == .oggVorbis else {
                throw BackbeatError(
                    .unsupportedFormat, operation: "export", url: url,
                    reason: "the vorbis preset writes Ogg, not \(type)")
            }
            quality = q
        case .flac:
            guard type == .flac else {
                throw BackbeatError(
                    .unsupportedFormat, operation: "export", url: url,
                    reason: "the flac preset writes FLAC, not \(type)")
            }
            format.commonFormat = .int16
        case .custom(let rate, let channels, let common, let q):
            if let rate {
                format.sampleRate = rate
                rateAskedFor = true
            }
            if let channels { format.channelCount = channels }
            if let common { format.commonFormat = common }
            if let q { quality = q }
        case .passthrough:
            break
        }
        // Ogg Opus takes five rates: from any other source rate, 48 kHz (unless a rate was asked for).
        if type == .oggOpus, !rateAskedFor, !AudioFileType.opusSampleRates.contains(format.sampleRate) {
            format.sampleRate = 48_000
        }
        try format.validate(operation: "export")
        let tags = source.tags.tags  // a damaged picture is dropped, not fatal to a conversion

        let writer = try AssetWriter(outputURL: url, fileType: type, overwrite: overwrite)
        writer.metadata = tags
        let input = AssetWriterInput(outputSettings: format, quality: quality)
        try writer.add(input)

        let reader = try AssetReader(asset: asset)
        reader.timeRange = timeRange
        let output = AssetReaderTrackOutput(outputSettings: format)
        output.framesPerBuffer = 8192
        try reader.add(output)
        try checkCancelled(url)
        try reader.startReading()
        defer { reader.cancelReading() }
        try writer.startWriting()
        do {
            while let buffer = try output.copyNextSampleBuffer() {
                try checkCancelled(url)
                try input.append(buffer)
                let (done, total) = reader.progress
                if total > 0 { setProgress(Double(done) / Double(total) * 0.999) }
            }
            input.markAsFinished()
            try checkCancelled(url)
            try writer.finish()
        } catch {
            writer.cancelWriting()
            throw error
        }
    }

    /// Copies the source byte for byte through a temporary file.
    private func copy(to url: URL, as fileType: AudioFileType?, overwrite: Bool) throws {
        let source = try asset.details()
        let requested = fileType ?? AudioFileType(pathExtension: url.pathExtension)
        if let requested, requested.description != source.container {
            throw BackbeatError(
                .unsupportedFormat, operation: "export", url: url,
                reason: "passthrough keeps the \(source.container) container; the output asks for \(requested)")
        }
        let output = try OutputFile(url: url, overwrite: overwrite)
        do {
            guard FileManager.default.createFile(atPath: output.temporaryURL.path, contents: nil) else {
                throw BackbeatError(
                    .writeFailed, operation: "create", url: url, reason: "cannot create the temporary file")
            }
            let reader = try asset.byteSourceReader()
            let writer = try FileDescriptor.writing(output.temporaryURL)
            var copied: Int64 = 0
            do {
                while case let chunk = try reader.bytes(at: copied, count: 1 << 20), !chunk.isEmpty {
                    try checkCancelled(url)
                    try writer.write(chunk)
                    copied += Int64(chunk.count)
                    if source.fileSize > 0 { setProgress(Double(copied) / Double(source.fileSize) * 0.999) }
                }
                try writer.synchronize()
                try writer.close()
            } catch {
                try? writer.close()
                throw error
            }
            try output.commit()
        } catch let error as BackbeatError {
            output.discard()
            throw error
        } catch {
            output.discard()
            throw BackbeatError(.writeFailed, operation: "copy", url: url, reason: "\(error)")
        }
    }
}
