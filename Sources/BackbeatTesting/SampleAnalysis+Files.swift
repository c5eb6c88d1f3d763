import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SampleAnalysis {
    /// Reads a whole audio file into samples, in one call: a render a `.file`
    /// output wrote, a golden file, any file Backbeat decodes (WAV, FLAC, Ogg
    /// Vorbis, Opus...).
    ///
    /// The file's own rate and channels are kept, nothing is resampled, and
    /// Float32 samples (a Backbeat render) come back bit for bit. Integer
    /// samples map to -1..<1 (Int16 by 1/32768), as `PCMBuffer.interleavedFloats` does.
    ///
    /// ```swift
    /// let rendered = try SampleAnalysis.samples(contentsOf: wavURL)
    /// let onsets = SampleAnalysis.onsetFrames(rendered.samples, channels: rendered.channels)
    /// ```
    ///
    /// - Parameter url: The file.
    /// - Returns: Its samples, interleaved, with their channel count and rate.
    /// - Throws: ``BackbeatError``: `.fileNotFound` when there is no file,
    ///   `.unsupportedCodec` or `.corruptFile` when it is not audio Backbeat
    ///   reads, `.truncatedFile` or `.readFailed` when decoding fails midway.
    public static func samples(contentsOf url: URL) throws -> AudioSamples {
        let reader = try AssetReader(asset: AudioAsset(url: url))
        let output = AssetReaderTrackOutput(outputSettings: nil)
        output.framesPerBuffer = 65_536
        try reader.add(output)
        try reader.startReading()
        var samples: [Float] = []
        while let buffer = try output.copyNextSampleBuffer() { samples += buffer.interleavedFloats }
        guard let format = output.outputFormat else {
            throw BackbeatError(.readFailed, operation: "SampleAnalysis.samples(contentsOf:)", url: url)
        }
        return AudioSamples(samples: samples, channels: format.channelCount, sampleRate: format.sampleRate)
    }
}
