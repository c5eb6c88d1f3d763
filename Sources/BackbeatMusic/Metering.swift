#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Average and peak power per channel in decibels, like `AVAudioPlayer`'s
/// meters: read after ``update(from:)``; -160 dB is silence.
struct Metering: Sendable {
    private(set) var average: [Float] = [-160, -160]
    private(set) var peak: [Float] = [-160, -160]

    static func decibels(_ amplitude: Float) -> Float {
        amplitude > 1e-8 ? max(-160, 20 * log10f(amplitude)) : -160
    }

    /// Takes the levels `streams` played since the last update (or the
    /// buffers they play now), after the player's volume and fades. Streams
    /// heard together add: their peaks (a bound), and their powers (exact
    /// for uncorrelated audio, such as a stinger over a section).
    mutating func update(from streams: some Sequence<AudioStream>) {
        var peak: [Float] = [0, 0]
        var power: [Float] = [0, 0]
        for stream in streams {
            let levels = stream.takeLevels()
            for c in 0..<2 {
                peak[c] += levels.peak[c]
                power[c] += levels.rms[c] * levels.rms[c]
            }
        }
        average = power.map { Self.decibels($0.squareRoot()) }
        self.peak = peak.map(Self.decibels)
    }

    /// Resets to silence.
    mutating func reset() {
        average = [-160, -160]
        peak = [-160, -160]
    }

    func average(forChannel channel: Int) -> Float { average.indices.contains(channel) ? average[channel] : -160 }
    func peak(forChannel channel: Int) -> Float { peak.indices.contains(channel) ? peak[channel] : -160 }
}
