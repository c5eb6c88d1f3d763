import Foundation
import Testing
@testable import Backbeat

/// Opens an offline engine, runs `body`, and always shuts the engine down.
func withOfflineEngine<T>(sampleRate: Int = 48_000, channels: Int = 2, maximumVoices: Int? = nil,
                          _ body: (AudioEngine) throws -> T) throws -> T {
    let engine = try AudioEngine(output: .offline(sampleRate: sampleRate, channels: channels), maximumVoices: maximumVoices)
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

/// Collects engine events for assertions.
final class EventRecorder: @unchecked Sendable {
    // @unchecked: `events` is only touched under `lock`.
    private let lock = NSLock()
    private var recorded: [PlaybackEvent] = []

    init(_ engine: AudioEngine) {
        engine.onEvent { [weak self] event in self?.append(event) }
    }

    private func append(_ event: PlaybackEvent) { lock.withLock { recorded.append(event) } }
    var events: [PlaybackEvent] { lock.withLock { recorded } }
}

/// A Sendable counter for completion callbacks.
final class Tally: @unchecked Sendable {
    // @unchecked: `values` is only touched under `lock`.
    private let lock = NSLock()
    private var values: [Bool] = []
    func record(_ value: Bool) { lock.withLock { values.append(value) } }
    var all: [Bool] { lock.withLock { values } }
}

extension Signal {
    /// The first frame index whose |sample| in channel `c` exceeds `threshold`.
    static func firstAudibleFrame(_ samples: [Float], channels: Int, threshold: Float = 1e-4) -> Int? {
        var i = 0
        while i < samples.count {
            for c in 0..<channels where abs(samples[i + c]) > threshold { return i / channels }
            i += channels
        }
        return nil
    }

    /// The last frame index with |sample| above `threshold`.
    static func lastAudibleFrame(_ samples: [Float], channels: Int, threshold: Float = 1e-4) -> Int? {
        var frame = samples.count / channels - 1
        while frame >= 0 {
            for c in 0..<channels where abs(samples[frame * channels + c]) > threshold { return frame }
            frame -= 1
        }
        return nil
    }

    /// The largest sample-to-sample difference within any channel.
    static func maxJump(_ samples: [Float], channels: Int) -> Float {
        var jump: Float = 0
        var i = channels
        while i < samples.count { jump = max(jump, abs(samples[i] - samples[i - channels])); i += 1 }
        return jump
    }

    /// A constant (DC) mono buffer.
    static func constant(_ value: Float, frames: Int, sampleRate: Int = 48_000, channels: Int = 1) -> PCMBuffer {
        try! PCMBuffer(format: AudioFormat(sampleRate: sampleRate, channelCount: channels),
                       floats: [Float](repeating: value, count: frames * channels))
    }
}
