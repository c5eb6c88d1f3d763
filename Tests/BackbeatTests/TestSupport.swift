import Foundation
import Testing
@testable import Backbeat

/// Opens an offline engine, runs `body`, and always shuts the engine down.
func withOfflineEngine<T>(sampleRate: Int = 48_000, channels: Int = 2,
                          _ body: (AudioEngine) throws -> T) throws -> T {
    let engine = try AudioEngine(output: .offline(sampleRate: sampleRate, channels: channels))
    defer { engine.shutdown() }
    return try body(engine)
}

/// A temporary directory removed when `body` returns.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("backbeat-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}

enum Signal {
    /// A sine of `frequency` Hz, `amplitude` peak, `seconds` long, mono Float32.
    static func sine(frequency: Double, seconds: Double, sampleRate: Int = 48_000, amplitude: Float = 0.5,
                     channels: Int = 1) -> PCMBuffer {
        let frames = Int((seconds * Double(sampleRate)).rounded())
        var samples = [Float](repeating: 0, count: frames * channels)
        for f in 0..<frames {
            let v = amplitude * Float(sin(2 * Double.pi * frequency * Double(f) / Double(sampleRate)))
            for c in 0..<channels { samples[f * channels + c] = v }
        }
        return try! PCMBuffer(format: AudioFormat(sampleRate: sampleRate, channelCount: channels), floats: samples)
    }

    /// One channel of interleaved samples.
    static func channel(_ samples: [Float], _ index: Int, of channels: Int) -> [Float] {
        stride(from: index, to: samples.count, by: channels).map { samples[$0] }
    }

    /// Sign changes from negative to non-negative.
    static func risingZeroCrossings(_ samples: some Collection<Float>) -> Int {
        var count = 0
        var previous: Float?
        for s in samples {
            if let p = previous, p < 0, s >= 0 { count += 1 }
            previous = s
        }
        return count
    }

    static func peak(_ samples: some Collection<Float>) -> Float { samples.reduce(0) { max($0, abs($1)) } }

    static func rms(_ samples: some Collection<Float>) -> Float {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(Float(0)) { $0 + $1 * $1 } / Float(samples.count)).squareRoot()
    }
}
