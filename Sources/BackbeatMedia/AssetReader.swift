import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads an asset's audio as PCM buffers, like `AVAssetReader`.
///
/// Add one ``AssetReaderTrackOutput``, optionally set ``timeRange``, call
/// ``startReading()``, then call ``AssetReaderTrackOutput/copyNextSampleBuffer()``
/// until it returns nil. The file is decoded a buffer at a time: reading never
/// holds the whole song in memory. A reader is used from one task at a time.
public final class AssetReader {
    /// Where a reader is in its life.
    public enum Status: Sendable, Equatable {
        /// Not started.
        case unknown
        /// Buffers are being read.
        case reading
        /// Every buffer has been read.
        case completed
        /// Reading failed; see ``AssetReader/error``.
        case failed
        /// ``AssetReader/cancelReading()`` was called.
        case cancelled
    }

    /// The asset being read.
    public let asset: AudioAsset
    /// The part of the asset to read; nil (the default) reads all of it. Set before ``startReading()``.
    public var timeRange: MediaTimeRange?
    /// The reader's state.
    public internal(set) var status: Status = .unknown
    /// Why reading failed, when ``status`` is `.failed`.
    public internal(set) var error: BackbeatError?
    /// The outputs added so far (at most one: an audio file has one track).
    public private(set) var outputs: [AssetReaderTrackOutput] = []

    /// Creates a reader for an asset.
    ///
    /// - Parameter asset: The audio to read; it is opened now, to fail early.
    /// - Throws: ``BackbeatError`` if the asset cannot be opened.
    public init(asset: AudioAsset) throws {
        self.asset = asset
        _ = try asset.details()
    }

    /// Adds the track output. Throws `.invalidArgument` once reading has begun or if an output was already added.
    ///
    /// - Parameter output: The output to read through; it must not belong to another reader.
    /// - Throws: ``BackbeatError/Code/invalidArgument`` as above.
    public func add(_ output: AssetReaderTrackOutput) throws {
        guard status == .unknown else {
            throw BackbeatError(
                .invalidArgument, operation: "add output", url: asset.url, reason: "reading has already started")
        }
        guard outputs.isEmpty, output.reader == nil else {
            throw BackbeatError(
                .invalidArgument, operation: "add output", url: asset.url,
                reason: "an audio file has one track, and it already has an output")
        }
        output.reader = self
        outputs.append(output)
    }

    /// Opens the file and prepares the output.
    ///
    /// - Throws: ``BackbeatError`` if there is no output, the settings are invalid or the file cannot be decoded.
    public func startReading() throws {
        guard status == .unknown else {
            throw BackbeatError(
                .invalidArgument, operation: "startReading", url: asset.url, reason: "reading has already started")
        }
        guard let output = outputs.first else {
            throw BackbeatError(
                .invalidArgument, operation: "startReading", url: asset.url,
                reason: "add an AssetReaderTrackOutput first")
        }
        do {
            try output.start(asset: asset, timeRange: timeRange)
            status = .reading
        } catch let error as BackbeatError {
            fail(error)
            throw error
        }
    }

    /// Stops reading and frees the decoder.
    public func cancelReading() {
        outputs.first?.stop()
        if status == .reading || status == .unknown { status = .cancelled }
    }

    func fail(_ error: BackbeatError) {
        self.error = error
        status = .failed
        outputs.first?.stop()
    }

    /// Source frames consumed so far and expected in all, for progress.
    var progress: (done: Int64, total: Int64) { outputs.first?.sourceProgress ?? (0, 0) }
}

/// The reader's output for the file's audio, like `AVAssetReaderTrackOutput`.
public final class AssetReaderTrackOutput {
    /// The PCM to produce; nil gives the file's native PCM (its rate and
    /// channels; Int16 for 16-bit-or-less integer files, else Float32; interleaved).
    public let outputSettings: AudioFormat?
    /// Frames per buffer returned by ``copyNextSampleBuffer()`` (the last may be shorter;
    /// resampled buffers vary by a few frames). Default 4096.
    public var framesPerBuffer: Int = 4096
    /// The format of the buffers, known once reading has started.
    public private(set) var outputFormat: AudioFormat?

    weak var reader: AssetReader?
    private var pipeline: ReadPipeline?

    /// Creates an output with the given settings (nil: the file's native PCM).
    ///
    /// - Parameter outputSettings: The format of the buffers it returns (converted and resampled as needed); nil keeps the file's native PCM.
    public init(outputSettings: AudioFormat?) {
        self.outputSettings = outputSettings
    }

    /// The next buffer, or nil when the range or file is finished.
    ///
    /// - Throws: ``BackbeatError`` if decoding fails (the reader's status becomes `.failed`)
    ///   or the reader has not started.
    public func copyNextSampleBuffer() throws -> PCMBuffer? {
        guard let reader else {
            throw BackbeatError(
                .invalidArgument, operation: "copyNextSampleBuffer", reason: "add the output to a reader first")
        }
        switch reader.status {
        case .reading: break
        case .unknown:
            throw BackbeatError(
                .invalidArgument, operation: "copyNextSampleBuffer", url: reader.asset.url,
                reason: "call startReading() first")
        case .completed, .cancelled: return nil
        case .failed:
            throw reader.error ?? BackbeatError(.readFailed, operation: "copyNextSampleBuffer", url: reader.asset.url)
        }
        guard let pipeline else { return nil }
        do {
            if let buffer = try pipeline.next(frames: max(1, framesPerBuffer)) { return buffer }
            reader.status = .completed
            stop()
            return nil
        } catch let error as BackbeatError {
            reader.fail(error)
            throw error
        }
    }

    func start(asset: AudioAsset, timeRange: MediaTimeRange?) throws {
        let decoder = try AudioDecoders.open(asset)
        let native = decoder.nativeFormat
        var format = outputSettings ?? native
        if outputSettings == nil { format.isInterleaved = true }
        try format.validate(operation: "startReading")
        pipeline = try ReadPipeline(decoder: decoder, output: format, timeRange: timeRange)
        outputFormat = format
    }

    func stop() {
        pipeline?.close()
        pipeline = nil
    }

    var sourceProgress: (done: Int64, total: Int64)? { pipeline.map { ($0.sourceFramesRead, $0.sourceFramesTotal) } }
}
