import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes PCM buffers to a WAV, AIFF, CAF, FLAC, Ogg Vorbis or Ogg Opus file, with tags,
/// like `AVAssetWriter`.
///
/// The file is written to a hidden temporary file beside `outputURL` and
/// renamed into place by ``finishWriting()``; a failed or cancelled write
/// leaves nothing behind, and an existing file is only replaced when
/// `overwrite` is true. A writer is used from one task at a time.
///
/// ```swift
/// let writer = try AssetWriter(outputURL: url, fileType: .oggVorbis)
/// writer.metadata = AudioTags(title: "Theme")
/// let input = AssetWriterInput(outputSettings: AudioFormat(sampleRate: 44_100, channelCount: 2))
/// try writer.add(input)
/// try writer.startWriting()
/// try input.append(buffer)
/// try await writer.finishWriting()
/// ```
public final class AssetWriter {
    /// Where a writer is in its life.
    public enum Status: Sendable, Equatable {
        /// Not started.
        case unknown
        /// Accepting buffers.
        case writing
        /// The file is complete and in place.
        case completed
        /// Writing failed; see ``AssetWriter/error``. Nothing was left behind.
        case failed
        /// ``AssetWriter/cancelWriting()`` was called. Nothing was left behind.
        case cancelled
    }

    /// The file to create.
    public let outputURL: URL
    /// The container.
    public let outputFileType: AudioFileType
    /// Whether an existing file at ``outputURL`` may be replaced.
    public let overwrite: Bool
    /// Tags to write; set before ``startWriting()``. Ogg Vorbis stores every
    /// field including artwork; FLAC, WAV, AIFF and CAF store what libsndfile
    /// supports (title, artist, album, genre, date, track number).
    public var metadata = AudioTags()
    /// The writer's state.
    public private(set) var status: Status = .unknown
    /// Why writing failed, when ``status`` is `.failed`.
    public private(set) var error: BackbeatError?
    /// The inputs added so far (at most one).
    public private(set) var inputs: [AssetWriterInput] = []

    private var sink: Sink?

    /// Creates a writer. Checks now that the directory exists and that the
    /// file does not, unless `overwrite` is true.
    ///
    /// - Parameters:
    ///   - outputURL: The file to write; it is created by ``startWriting()``.
    ///   - fileType: The container and encoding.
    ///   - overwrite: Whether an existing file at `outputURL` may be replaced.
    /// - Throws: ``BackbeatError`` `.writeFailed` (missing directory), `.fileExists`, `.notAFile`.
    public init(outputURL: URL, fileType: AudioFileType, overwrite: Bool = false) throws {
        self.outputURL = outputURL
        self.outputFileType = fileType
        self.overwrite = overwrite
        _ = try OutputFile(url: outputURL, overwrite: overwrite)
    }

    /// Adds the input. Throws `.invalidArgument` after ``startWriting()`` or for a second input.
    ///
    /// - Parameter input: The one input; it must not belong to another writer.
    /// - Throws: ``BackbeatError/Code/invalidArgument`` as above.
    public func add(_ input: AssetWriterInput) throws {
        guard status == .unknown else {
            throw BackbeatError(
                .invalidArgument, operation: "add input", url: outputURL, reason: "writing has already started")
        }
        guard inputs.isEmpty, input.writer == nil else {
            throw BackbeatError(
                .invalidArgument, operation: "add input", url: outputURL, reason: "a writer takes one audio input")
        }
        input.writer = self
        inputs.append(input)
    }

    /// Opens the temporary file and writes the headers and tags.
    ///
    /// - Throws: ``BackbeatError`` if there is no input, the settings do not fit the container, or the file cannot be created.
    public func startWriting() throws {
        guard status == .unknown else {
            throw BackbeatError(
                .invalidArgument, operation: "startWriting", url: outputURL, reason: "writing has already started")
        }
        guard let input = inputs.first else {
            throw BackbeatError(
                .invalidArgument, operation: "startWriting", url: outputURL, reason: "add an AssetWriterInput first")
        }
        let format = input.outputSettings
        do {
            try format.validate(operation: "startWriting")
            if outputFileType == .oggOpus {
                guard AudioFileType.opusSampleRates.contains(format.sampleRate) else {
                    throw BackbeatError(
                        .unsupportedFormat, operation: "startWriting", url: outputURL,
                        reason: "Ogg Opus takes 8000, 12000, 16000, 24000 or 48000 Hz, not \(format.sampleRate)")
                }
                guard format.channelCount <= 2 else {
                    throw BackbeatError(
                        .unsupportedFormat, operation: "startWriting", url: outputURL,
                        reason: "Backbeat writes Ogg Opus in mono or stereo, not \(format.channelCount) channels")
                }
            }
            switch outputFileType {
            case .oggVorbis:
                sink = .vorbis(
                    try VorbisFileWriter(
                        url: outputURL, sampleRate: format.sampleRate, channelCount: format.channelCount,
                        quality: input.quality, tags: metadata, overwrite: overwrite))
            default:
                sink = .sndfile(
                    try SoundFileWriter(
                        url: outputURL, type: Self.sndfileType(outputFileType, format.commonFormat),
                        sampleRate: format.sampleRate, channelCount: format.channelCount,
                        overwrite: overwrite, tags: metadata))
            }
            status = .writing
        } catch let error as BackbeatError {
            fail(error)
            throw error
        }
    }

    static func sndfileType(_ type: AudioFileType, _ sample: AudioFormat.CommonFormat) -> SoundFileWriter.FileType {
        switch (type, sample) {
        case (.aiff, .int16): .aiff16
        case (.aiff, .float32): .aiffFloat
        case (.caf, .int16): .caf16
        case (.caf, .float32): .cafFloat
        case (.flac, .int16): .flac16
        case (.flac, .float32): .flac24
        case (.oggOpus, _): .opus
        case (_, .int16): .wav16
        case (_, .float32): .wavFloat
        }
    }

    /// Completes the file and renames it into place.
    ///
    /// - Throws: ``BackbeatError`` if the file cannot be completed; nothing is left behind then.
    public func finishWriting() async throws {
        try finish()
    }

    package func finish() throws {
        guard status == .writing, let sink else {
            throw error
                ?? BackbeatError(
                    .invalidArgument, operation: "finishWriting", url: outputURL, reason: "the writer is not writing")
        }
        do {
            switch sink {
            case .vorbis(let w): try w.finish()
            case .sndfile(let w): try w.finish()
            }
            self.sink = nil
            status = .completed
        } catch let error as BackbeatError {
            fail(error)
            throw error
        }
    }

    /// Abandons the file; nothing is left on disk.
    public func cancelWriting() {
        closeSink()
        if status == .writing || status == .unknown { status = .cancelled }
    }

    private func closeSink() {
        switch sink {
        case .vorbis(let w): w.cancel()
        case .sndfile(let w): w.cancel()
        case nil: break
        }
        sink = nil
    }

    func fail(_ error: BackbeatError) {
        closeSink()
        self.error = error
        status = .failed
    }

    func write(_ buffer: PCMBuffer) throws {
        guard status == .writing, let sink else {
            throw error
                ?? BackbeatError(
                    .invalidArgument, operation: "append", url: outputURL, reason: "the writer is not writing")
        }
        do {
            switch (sink, buffer.samples) {
            case (.sndfile(let w), .int16(let s)) where buffer.format.isInterleaved || buffer.format.channelCount == 1:
                try w.write(s[...])
            case (.sndfile(let w), _):
                try w.write(buffer.interleavedFloats[...])
            case (.vorbis(let w), _):
                try w.write(buffer.interleavedFloats[...])
            }
        } catch let error as BackbeatError {
            fail(error)
            throw error
        }
    }

    private enum Sink {
        case sndfile(SoundFileWriter)
        case vorbis(VorbisFileWriter)
    }
}

/// The writer's audio input, like `AVAssetWriterInput`.
public final class AssetWriterInput {
    /// The file's PCM shape: sample rate and channel count; `commonFormat`
    /// chooses 16-bit integer or 32-bit float samples in WAV, AIFF and CAF
    /// (16 or 24 bits in FLAC; Vorbis ignores it). Interleaving is irrelevant to files.
    public let outputSettings: AudioFormat
    /// Ogg Vorbis VBR quality, from -0.1 (smallest) to 1 (best); ignored by other containers. Default 0.5 (about 160 kbit/s stereo).
    public var quality: Double = 0.5

    weak var writer: AssetWriter?
    private var finished = false

    /// Creates an input with the given file settings.
    ///
    /// - Parameters:
    ///   - outputSettings: The file's sample rate and channel count; appended buffers must match them.
    ///   - quality: The Ogg Vorbis quality, from 0 (smallest) to 1 (best); other containers ignore it.
    public init(outputSettings: AudioFormat, quality: Double = 0.5) {
        self.outputSettings = outputSettings
        self.quality = quality
    }

    /// Whether the input takes more buffers now: true while the writer is
    /// writing and ``markAsFinished()`` has not been called. Appending encodes
    /// synchronously, so a writing input is always ready.
    public var isReadyForMoreMediaData: Bool { !finished && writer?.status == .writing }

    /// Appends a buffer, which must have the settings' sample rate and channel
    /// count (either sample type, either layout).
    ///
    /// - Parameter buffer: The next samples, in either sample type and layout.
    /// - Throws: ``BackbeatError`` `.invalidArgument` for a mismatched buffer or a writer not writing;
    ///   `.writeFailed` if the file cannot be written (the writer then fails and removes its file).
    public func append(_ buffer: PCMBuffer) throws {
        guard let writer else {
            throw BackbeatError(.invalidArgument, operation: "append", reason: "add the input to a writer first")
        }
        guard !finished else {
            throw BackbeatError(
                .invalidArgument, operation: "append", url: writer.outputURL, reason: "the input is marked as finished")
        }
        guard buffer.format.sampleRate == outputSettings.sampleRate,
            buffer.format.channelCount == outputSettings.channelCount
        else {
            throw BackbeatError(
                .invalidArgument, operation: "append", url: writer.outputURL,
                reason:
                    "buffer is \(buffer.format), the input expects \(outputSettings.sampleRate) Hz, \(outputSettings.channelCount) ch"
            )
        }
        try writer.write(buffer)
    }

    /// Says no more buffers will come; ``AssetWriter/finishWriting()`` completes the file.
    public func markAsFinished() { finished = true }
}
