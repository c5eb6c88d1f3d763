import BackbeatCapture
import BackbeatEngine
import BackbeatMedia

/// The payloads of the records that hold what BackbeatAcoustics sets on
/// the engine (``CaptureKind/effectsAcousticFilters``, ``CaptureKind/effectsAcousticGains``,
/// ``CaptureKind/effectsRoomReverbs``, ``CaptureKind/effectsAcousticVoice``):
/// the simulation's results, not the level, so a replay needs neither the
/// geometry nor Embree. Every number read back is bounded: a count by what
/// the payload can hold, a gain to 0...1 (never NaN), a direction to finite
/// values; anything else is a ``CaptureFormatError``.
package enum AcousticsCaptureCoding {
    /// One voice's filters as a record holds them: the voice by its id.
    package struct FilterEntry: Sendable, Equatable {
        /// The voice's id in the captured engine (``VoiceID/raw``).
        package var voice: UInt64
        /// The direct path's gains.
        package var direct: FilterGains
        /// The reverb send's gains.
        package var send: FilterGains
        /// The direction it is heard from; nil where the game put it.
        package var direction: Audio3DPoint?
        /// The room whose reverb its send feeds; nil for the environment reverb.
        package var reverbRoom: String?
    }

    /// What an ``CaptureKind/effectsAcousticVoice`` record set on its voice.
    package enum VoiceChange: Sendable, Equatable {
        /// ``Voice/setAcousticFilter(_:over:)``: the direct path's gains and the glide time.
        case filter(FilterGains, MediaTime?)
        /// ``Voice/setAcousticDirection(_:)``: the direction, or nil.
        case direction(Audio3DPoint?)
    }

    /// The most entries a record of voices may hold (a 10,000-voice game
    /// writes at most its voices; this bounds what a damaged count asks for).
    static let maximumEntries = 1 << 20
    /// The most rooms a room-reverb record may hold.
    static let maximumRooms = 4_096
    /// The longest room name read back, in bytes.
    static let maximumRoomNameBytes = 4_096

    private static let sendIsDirect: UInt8 = 1
    private static let hasDirection: UInt8 = 2
    private static let hasRoom: UInt8 = 4

    /// A direction as the engine keeps it: nil for none or for one that is
    /// not finite (the engine ignores those, and a record never holds one).
    ///
    /// - Parameter direction: The direction BackbeatAcoustics gave.
    package static func heardDirection(_ direction: SIMD3<Float>?) -> Audio3DPoint? {
        guard let d = direction, d.x.isFinite, d.y.isFinite, d.z.isFinite else { return nil }
        return Audio3DPoint(x: d.x, y: d.y, z: d.z)
    }

    // MARK: Writing

    /// Writes the voices' filters a ``AudioEngine/setAcousticFilters(_:over:)`` call changed.
    ///
    /// - Parameters:
    ///   - filters: The filters that changed something.
    ///   - duration: The call's glide time.
    ///   - encoder: Where to write them.
    static func encode(_ filters: [AcousticVoiceFilter], over duration: MediaTime?, into encoder: inout CaptureEncoder)
    {
        EffectsCaptureCoding.encode(duration, into: &encoder)
        encoder.append(UInt64(filters.count))
        for filter in filters {
            let direction = heardDirection(filter.direction)
            var flags: UInt8 = 0
            if filter.send == filter.direct { flags |= sendIsDirect }
            if direction != nil { flags |= hasDirection }
            if filter.reverbRoom != nil { flags |= hasRoom }
            encoder.append(filter.voice.id.raw)
            encoder.appendFixed(flags)
            encode(filter.direct, into: &encoder)
            if flags & sendIsDirect == 0 { encode(filter.send, into: &encoder) }
            if let direction { EffectsCaptureCoding.encode(direction, into: &encoder) }
            if let room = filter.reverbRoom { encoder.append(room) }
        }
    }

    /// Writes the audibility estimates a ``AudioEngine/setAcousticGains(_:)`` call changed.
    ///
    /// - Parameters:
    ///   - gains: The voices' ids and their new estimates (0...1).
    ///   - encoder: Where to write them.
    static func encode(_ gains: [(voice: UInt64, gain: Float)], into encoder: inout CaptureEncoder) {
        encoder.append(UInt64(gains.count))
        for (voice, gain) in gains {
            encoder.append(voice)
            encoder.append(gain)
        }
    }

    /// Writes a ``AudioEngine/setRoomReverbs(_:over:)`` call.
    ///
    /// - Parameters:
    ///   - reverbs: The rooms' reverbs, their levels already within 0...1.
    ///   - duration: The call's glide time.
    ///   - encoder: Where to write them.
    static func encode(_ reverbs: [RoomReverb], over duration: MediaTime?, into encoder: inout CaptureEncoder) {
        EffectsCaptureCoding.encode(duration, into: &encoder)
        encoder.append(UInt64(reverbs.count))
        for reverb in reverbs {
            encoder.append(reverb.room)
            EffectsCaptureCoding.encode(reverb.reverb, into: &encoder)
            encoder.append(reverb.gain)
        }
    }

    /// Writes a change made on one voice.
    ///
    /// - Parameters:
    ///   - change: What was set.
    ///   - voice: The voice's id.
    ///   - encoder: Where to write it.
    static func encode(_ change: VoiceChange, of voice: UInt64, into encoder: inout CaptureEncoder) {
        encoder.append(voice)
        switch change {
        case .filter(let gains, let duration):
            encoder.appendFixed(UInt8(0))
            encode(gains, into: &encoder)
            EffectsCaptureCoding.encode(duration, into: &encoder)
        case .direction(let direction):
            encoder.appendFixed(UInt8(1))
            EffectsCaptureCoding.encode(direction, into: &encoder)
        }
    }

    private static func encode(_ gains: FilterGains, into encoder: inout CaptureEncoder) {
        encoder.append(gains.gain)
        encoder.append(gains.gainLF)
        encoder.append(gains.gainHF)
    }

    // MARK: Reading

    /// Reads an ``CaptureKind/effectsAcousticFilters`` payload.
    ///
    /// - Parameter decoder: The record's decoder.
    /// - Returns: The glide time and the voices' filters.
    package static func filters(
        _ decoder: inout CaptureDecoder
    ) throws(CaptureFormatError) -> (duration: MediaTime?, entries: [FilterEntry]) {
        let duration = try EffectsCaptureCoding.optionalTime(&decoder)
        // An entry is at least an id byte, the flags and three gains.
        let count = try decoder.count(maximum: maximumEntries, minimumBytesEach: 14)
        var entries: [FilterEntry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let voice = try decoder.uint64()
            let flags = try decoder.fixed(UInt8.self)
            guard flags & ~(sendIsDirect | hasDirection | hasRoom) == 0 else {
                throw .malformed("acoustic filter flags \(flags)")
            }
            let direct = try filterGains(&decoder)
            let send = flags & sendIsDirect != 0 ? direct : try filterGains(&decoder)
            let direction = flags & hasDirection != 0 ? try finitePoint(&decoder) : nil
            let room = flags & hasRoom != 0 ? try decoder.string(maximumBytes: maximumRoomNameBytes) : nil
            entries.append(
                FilterEntry(voice: voice, direct: direct, send: send, direction: direction, reverbRoom: room))
        }
        return (duration, entries)
    }

    /// Reads an ``CaptureKind/effectsAcousticGains`` payload.
    ///
    /// - Parameter decoder: The record's decoder.
    /// - Returns: The voices' ids and their estimates, each within 0...1.
    package static func gains(
        _ decoder: inout CaptureDecoder
    ) throws(CaptureFormatError) -> [(voice: UInt64, gain: Float)] {
        let count = try decoder.count(maximum: maximumEntries, minimumBytesEach: 5)
        var gains: [(voice: UInt64, gain: Float)] = []
        gains.reserveCapacity(count)
        for _ in 0..<count {
            let voice = try decoder.uint64()
            gains.append((voice, try unitGain(&decoder, "an audibility estimate")))
        }
        return gains
    }

    /// Reads an ``CaptureKind/effectsRoomReverbs`` payload.
    ///
    /// - Parameter decoder: The record's decoder.
    /// - Returns: The glide time and the rooms' reverbs.
    package static func roomReverbs(
        _ decoder: inout CaptureDecoder
    ) throws(CaptureFormatError) -> (duration: MediaTime?, reverbs: [RoomReverb]) {
        let duration = try EffectsCaptureCoding.optionalTime(&decoder)
        // A room is at least its name's length, a reverb (about 90 bytes) and a level.
        let count = try decoder.count(maximum: maximumRooms, minimumBytesEach: 90)
        var reverbs: [RoomReverb] = []
        reverbs.reserveCapacity(count)
        for _ in 0..<count {
            let room = try decoder.string(maximumBytes: maximumRoomNameBytes)
            let reverb = try EffectsCaptureCoding.reverb(&decoder)
            reverbs.append(RoomReverb(room: room, reverb: reverb, gain: try unitGain(&decoder, "a room's level")))
        }
        return (duration, reverbs)
    }

    /// Reads an ``CaptureKind/effectsAcousticVoice`` payload.
    ///
    /// - Parameter decoder: The record's decoder.
    /// - Returns: The voice's id and what was set on it.
    package static func voiceChange(
        _ decoder: inout CaptureDecoder
    ) throws(CaptureFormatError) -> (voice: UInt64, change: VoiceChange) {
        let voice = try decoder.uint64()
        switch try decoder.fixed(UInt8.self) {
        case 0:
            let gains = try filterGains(&decoder)
            return (voice, .filter(gains, try EffectsCaptureCoding.optionalTime(&decoder)))
        case 1:
            let direction = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
                try finitePoint(&d)
            }
            return (voice, .direction(direction))
        case let other: throw .malformed("acoustic voice change \(other)")
        }
    }

    /// Three gains, each within 0...1 (what ``FilterGains`` holds).
    private static func filterGains(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) -> FilterGains {
        let gain = try unitGain(&decoder, "a filter gain")
        let low = try unitGain(&decoder, "a filter gain")
        let high = try unitGain(&decoder, "a filter gain")
        return FilterGains(gain: gain, gainLF: low, gainHF: high)
    }

    private static func unitGain(_ decoder: inout CaptureDecoder, _ what: String) throws(CaptureFormatError) -> Float {
        let value = try decoder.float()
        guard value >= 0, value <= 1 else { throw .malformed("\(what) of \(value), not within 0...1") }
        return value
    }

    private static func finitePoint(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) -> Audio3DPoint {
        let point = try EffectsCaptureCoding.point(&decoder)
        guard point.x.isFinite, point.y.isFinite, point.z.isFinite else {
            throw .malformed("a direction of (\(point.x), \(point.y), \(point.z))")
        }
        return point
    }
}

extension AudioEngine {
    /// Records the filters a ``setAcousticFilters(_:over:)`` call changed. With the lock held.
    ///
    /// - Parameters:
    ///   - filters: The filters that changed a voice.
    ///   - duration: The call's glide time.
    func recordAcousticFiltersLocked(_ filters: [AcousticVoiceFilter], over duration: MediaTime?) {
        guard !filters.isEmpty else { return }
        recordLocked(.effectsAcousticFilters) { AcousticsCaptureCoding.encode(filters, over: duration, into: &$0) }
    }

    /// Records the estimates a ``setAcousticGains(_:)`` call changed. With the lock held.
    ///
    /// - Parameter gains: The voices' ids and their new estimates.
    func recordAcousticGainsLocked(_ gains: [(voice: UInt64, gain: Float)]) {
        guard !gains.isEmpty else { return }
        recordLocked(.effectsAcousticGains) { AcousticsCaptureCoding.encode(gains, into: &$0) }
    }

    /// Records a ``setRoomReverbs(_:over:)`` call, unless it is the same as
    /// the one recorded before it and every room it names has its slot (it
    /// then changes nothing). With the lock held.
    ///
    /// - Parameters:
    ///   - reverbs: The rooms' reverbs, their levels within 0...1.
    ///   - duration: The call's glide time.
    func recordRoomReverbsLocked(_ reverbs: [RoomReverb], over duration: MediaTime?) {
        guard let recorder = captureRecorder else { return }
        var encoder = CaptureEncoder()
        AcousticsCaptureCoding.encode(reverbs, over: duration, into: &encoder)
        let capture = effectsCaptureLocked
        let mixer = existingEffectsLocked?.roomReverbs
        if let last = capture.roomReverbsRecorded, last.generation == recorder.generation,
            last.bytes == encoder.bytes, let mixer, reverbs.allSatisfy({ mixer.slot(ofRoom: $0.room) != nil })
        {
            return
        }
        capture.roomReverbsRecorded = (recorder.generation, encoder.bytes)
        recordLocked(.effectsRoomReverbs) { for byte in encoder.bytes { $0.appendFixed(byte) } }
    }
}

extension Voice {
    /// Records an acoustic change set on the voice itself. With the engine lock held.
    ///
    /// - Parameter change: What was set.
    func recordAcousticLocked(_ change: AcousticsCaptureCoding.VoiceChange) {
        guard let engine, engine.captureRecorder != nil else { return }
        engine.recordLocked(.effectsAcousticVoice) { AcousticsCaptureCoding.encode(change, of: id.raw, into: &$0) }
    }
}
