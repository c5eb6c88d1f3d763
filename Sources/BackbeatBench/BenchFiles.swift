import Backbeat
import BackbeatMedia
import Foundation

/// Input files the benchmarks generate for themselves.
enum BenchFiles {
    /// Writes `pcm` as a 16-bit WAV with Backbeat's own writer.
    static func writeWAV(_ pcm: PCMBuffer, to url: URL) throws {
        try blocking {
            let writer = try AssetWriter(outputURL: url, fileType: .wav, overwrite: true)
            let input = AssetWriterInput(
                outputSettings: AudioFormat(
                    sampleRate: pcm.format.sampleRate,
                    channelCount: pcm.format.channelCount,
                    commonFormat: .int16))
            try writer.add(input)
            try writer.startWriting()
            try input.append(pcm)
            input.markAsFinished()
            try await writer.finishWriting()
        }
    }
}
