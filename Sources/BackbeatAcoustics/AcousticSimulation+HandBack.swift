import BackbeatEffects
import BackbeatEngine

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension AcousticSimulation {
    /// The smallest change of a band gain, in decibels, that ``update()``
    /// hands over to a voice: below what a listener notices of a level
    /// (about 1 dB), and each hand-over starts a glide that the engine steps
    /// every period, so a voice whose path barely changed costs nothing.
    /// The voice is never further than this from its path's result.
    static let handBackThreshold: Float = 0.25

    /// The smallest change of the direction a voice is heard from, in
    /// degrees, that ``update()`` hands over: below the ear's resolution
    /// straight ahead (about 1 degree).
    static let directionThreshold: Float = 0.5

    /// Gains below this (-100 dB) are silence, all alike.
    static let silentGain: Float = 1e-5

    /// Whether `filter` sounds as `previous` does, within ``handBackThreshold``
    /// and ``directionThreshold``: the same reverb room, each gain within the
    /// threshold, the direction within its threshold.
    ///
    /// - Parameters:
    ///   - filter: The result worked out now.
    ///   - previous: The one last handed over.
    static func isAudiblySame(_ filter: AcousticVoiceFilter, as previous: AcousticVoiceFilter) -> Bool {
        guard filter.reverbRoom == previous.reverbRoom,
            isAudiblySame(filter.direct, as: previous.direct), isAudiblySame(filter.send, as: previous.send)
        else { return false }
        switch (filter.direction, previous.direction) {
        case (nil, nil):
            return true
        case (let a?, let b?):
            return (a * b).sum() >= cosineOfDirectionThreshold
        default:
            return false
        }
    }

    /// The cosine of ``directionThreshold``.
    static let cosineOfDirectionThreshold = cosf(directionThreshold * .pi / 180)

    /// The largest ratio between two gains within ``handBackThreshold``.
    static let thresholdRatio = powf(10, handBackThreshold / 20)

    /// Whether each of the three gains is within ``handBackThreshold`` of the other's.
    ///
    /// - Parameters:
    ///   - a: Gains worked out now.
    ///   - b: Gains last handed over.
    static func isAudiblySame(_ a: FilterGains, as b: FilterGains) -> Bool {
        func same(_ x: Float, _ y: Float) -> Bool {
            let (x, y) = (max(x, silentGain), max(y, silentGain))
            return x <= y * thresholdRatio && y <= x * thresholdRatio
        }
        return same(a.gain, b.gain) && same(a.gainLF, b.gainLF) && same(a.gainHF, b.gainHF)
    }
}
