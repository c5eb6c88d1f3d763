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

    /// Takes the levels the stream played since the last update (or the
    /// buffer it plays now), after the player's volume and fades.
    mutating func update(from stream: AudioStream) {
        let levels = stream.takeLevels()
        average = levels.rms.map(Self.decibels)
        peak = levels.peak.map(Self.decibels)
    }

    /// Resets to silence.
    mutating func reset() {
        average = [-160, -160]
        peak = [-160, -160]
    }

    func average(forChannel channel: Int) -> Float { average.indices.contains(channel) ? average[channel] : -160 }
    func peak(forChannel channel: Int) -> Float { peak.indices.contains(channel) ? peak[channel] : -160 }
}
