import Backbeat
import BackbeatTesting
import Foundation

/// A burst to excite a reverb, and the decay time read off its tail.
package enum ReverbTail {
    /// 100 ms of 64 tones between 300 Hz and 2 kHz (fixed random phases), mono at 48 kHz.
    package static func burst() throws -> PCMBuffer {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        let tones = (0..<64).map { _ in (f: 300 + 1_700 * random(), phase: 2 * Double.pi * random()) }
        let samples = (0..<4_800).map { i in
            Float(tones.reduce(0) { $0 + sin(2 * Double.pi * $1.f * Double(i) / 48_000 + $1.phase) } / 16)
        }
        return try PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: samples)
    }

    /// The time a tail (mono, 48 kHz) takes to fall 60 dB, from a straight
    /// line through its 20 ms levels between 5 and 35 dB below its first 100 ms.
    package static func decayTime(_ tail: [Float]) -> Double? {
        let window = 960
        let levels = stride(from: 0, to: tail.count - window + 1, by: window).map {
            20 * log10(max(Double(SampleAnalysis.rms(tail[$0..<($0 + window)])), 1e-12))
        }
        guard let top = levels.prefix(5).max() else { return nil }
        let points = levels.enumerated().filter { $0.element < top - 5 && $0.element > top - 35 }
            .map { (x: Double($0.offset) * 0.02, y: $0.element) }
        guard points.count >= 10 else { return nil }
        let mx = points.map(\.x).reduce(0, +) / Double(points.count)
        let my = points.map(\.y).reduce(0, +) / Double(points.count)
        let slope =
            points.map { ($0.x - mx) * ($0.y - my) }.reduce(0, +)
            / points.map { ($0.x - mx) * ($0.x - mx) }.reduce(0, +)
        return slope < 0 ? -60 / slope : nil
    }
}
