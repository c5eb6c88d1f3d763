import Backbeat
import Foundation

/// A scratch folder for one test, removed when `body` returns, and a WAV
/// written into it with Backbeat's own writer.
enum TestingScratch {
    static func withDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("backbeat-testing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        return try await body(url)
    }

    /// Writes `buffer` as a WAV at `url` through AssetWriter.
    static func writeWAV(_ buffer: PCMBuffer, to url: URL) async throws {
        let writer = try AssetWriter(outputURL: url, fileType: .wav)
        let input = AssetWriterInput(outputSettings: buffer.format)
        try writer.add(input)
        try writer.startWriting()
        try input.append(buffer)
        input.markAsFinished()
        try await writer.finishWriting()
    }
}
