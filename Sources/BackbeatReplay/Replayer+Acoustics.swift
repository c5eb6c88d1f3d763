import BackbeatCapture
import BackbeatEffects
import BackbeatEngine
import BackbeatMedia

extension Replayer {
    /// Applies a record of what BackbeatAcoustics set on the captured engine
    /// (``CaptureKind/effectsAcousticFilters``, ``CaptureKind/effectsAcousticGains``,
    /// ``CaptureKind/effectsRoomReverbs``, ``CaptureKind/effectsAcousticVoice``)
    /// through the same engine calls: the simulation's results are in the
    /// records, so the replay needs neither the level's geometry nor Embree.
    /// A voice the capture never started (it began before the capture) is skipped.
    ///
    /// - Parameters:
    ///   - record: The record.
    ///   - decoder: Its payload's decoder.
    /// - Throws: A ``CaptureFormatError`` when the payload does not decode or a
    ///   number in it is out of bounds (a count past the record's end, a gain
    ///   outside 0...1 or NaN, a direction that is not finite).
    func applyAcoustics(_ record: CaptureRecord, _ decoder: inout CaptureDecoder) throws {
        typealias Coding = AcousticsCaptureCoding
        switch record.kind {
        case .effectsAcousticFilters:
            let (duration, entries) = try Coding.filters(&decoder)
            let filters = entries.compactMap { entry -> AcousticVoiceFilter? in
                guard let voice = voices[entry.voice] as? Voice else { return nil }
                return AcousticVoiceFilter(
                    voice: voice, direct: entry.direct, send: entry.send,
                    direction: entry.direction.map { SIMD3($0.x, $0.y, $0.z) }, reverbRoom: entry.reverbRoom)
            }
            engine.setAcousticFilters(filters, over: duration)
        case .effectsAcousticGains:
            let gains = try Coding.gains(&decoder).compactMap { entry -> (voice: Voice, gain: Float)? in
                (voices[entry.voice] as? Voice).map { ($0, entry.gain) }
            }
            engine.setAcousticGains(gains)
        case .effectsRoomReverbs:
            let (duration, reverbs) = try Coding.roomReverbs(&decoder)
            engine.setRoomReverbs(reverbs, over: duration)
            note("room reverbs")
        case .effectsAcousticVoice:
            let (raw, change) = try Coding.voiceChange(&decoder)
            guard let voice = voices[raw] as? Voice else { return }
            switch change {
            case .filter(let gains, let duration): voice.setAcousticFilter(gains, over: duration)
            case .direction(let point): voice.setAcousticDirection(point.map { SIMD3($0.x, $0.y, $0.z) })
            }
        default: skipUnknown(record)
        }
    }
}
