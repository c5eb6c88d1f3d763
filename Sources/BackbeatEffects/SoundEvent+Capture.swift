import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

extension SoundEvent {
    /// The event's id in the engine's capture, declaring it (and its sounds,
    /// or its bank) the first time the capture sees it; nil when no capture
    /// is on. With the lock held.
    ///
    /// - Parameter engine: Its engine (nil: an event without one, never captured).
    func captureIDLocked(_ engine: AudioEngine?) -> UInt32? {
        guard let engine, let recorder = engine.captureRecorder else { return nil }
        if captureTag.generation == recorder.generation { return captureTag.id }
        // What it refers to is declared first: a record's payload is written under the writer's lock.
        let bankID = bank?.captureIDLocked(engine)
        let soundIDs = bankID == nil ? soundsValue.compactMap { $0.captureIDLocked(engine) } : []
        return engine.captureIDLocked(&captureTag, declaring: .effectsEventDeclared) { encoder in
            if let bankID {
                encoder.appendFixed(UInt8(1))
                encoder.append(bankID)
                encoder.append(name)
            } else {
                encoder.appendFixed(UInt8(0))
                encoder.append(name)
                encoder.append(UInt64(soundIDs.count))
                for id in soundIDs { encoder.append(id) }
                encoder.append(modeValue.rawValue)
                encoder.append(UInt64(weightsValue.count))
                for weight in weightsValue { encoder.append(weight) }
            }
            encodeStateLocked(engine: engine, into: &encoder)
        }
    }

    /// Records a setting changed on a declared event. With the lock held.
    func recordSettingLocked(_ id: UInt32?, _ setting: EventSetting, _ value: (inout CaptureEncoder) -> Void) {
        guard let id, let engine else { return }
        engine.recordLocked(.effectsEventSetting) { encoder in
            encoder.append(id)
            encoder.appendFixed(setting.rawValue)
            value(&encoder)
        }
    }

    /// Records a play and the voices it started, stamped with `frame`. With the lock held.
    func recordPlayLocked(
        _ id: UInt32, engine: AudioEngine, frame: Int64, at time: MediaTime?, volume: Float,
        position: Audio3DPoint?, bus: Bus?, _ started: [Voice]
    ) {
        engine.recordLocked(.effectsEventPlay, frame: frame) { e in
            e.append(id)
            EffectsCaptureCoding.encode(time, into: &e)
            e.append(volume)
            EffectsCaptureCoding.encode(position, into: &e)
            EffectsCaptureCoding.encode(bus, engine: engine, into: &e)
            e.append(UInt64(started.count))
            for voice in started { e.append(voice.id.raw) }
        }
    }

    /// Writes the ranges of a randomization.
    ///
    /// - Parameters:
    ///   - r: The randomization.
    ///   - encoder: Where to write it.
    package static func encode(_ r: Randomization, into encoder: inout CaptureEncoder) {
        for range in [r.volumeDecibels, r.pitchCents, r.pan] {
            encoder.append(range.lowerBound)
            encoder.append(range.upperBound)
        }
        EffectsCaptureCoding.encode(r.positionOffset, into: &encoder)
        EffectsCaptureCoding.encode(r.startDelay.lowerBound, into: &encoder)
        EffectsCaptureCoding.encode(r.startDelay.upperBound, into: &encoder)
    }

    /// Reads the ranges of a randomization.
    ///
    /// - Parameter decoder: The record's decoder.
    package static func randomization(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) -> Randomization {
        func range() throws(CaptureFormatError) -> ClosedRange<Float> {
            let (low, high) = (try decoder.float(), try decoder.float())
            guard low <= high else { throw .malformed("a range \(low)...\(high)") }
            return low...high
        }
        let volume = try range()
        let pitch = try range()
        let pan = try range()
        let offset = try EffectsCaptureCoding.point(&decoder)
        let (low, high) = (try EffectsCaptureCoding.time(&decoder), try EffectsCaptureCoding.time(&decoder))
        guard low <= high else { throw .malformed("a start delay \(low)...\(high)") }
        return Randomization(
            volumeDecibels: volume, pitchCents: pitch, pan: pan, positionOffset: offset, startDelay: low...high)
    }

    /// Writes the event's settings and where its choices are: its generator,
    /// history, shuffle bag, sequence and last trigger.
    private func encodeStateLocked(engine: AudioEngine, into e: inout CaptureEncoder) {
        e.append(modeValue.rawValue)
        e.append(avoidLast)
        Self.encode(randomizationValue, into: &e)
        e.append(volumeValue)
        e.append(priorityValue)
        EffectsCaptureCoding.encode(busValue, engine: engine, into: &e)
        EffectsCaptureCoding.encode(cooldownValue, into: &e)
        e.appendOptional(instanceLimit) { $0.append($1) }
        e.append(stealPolicyValue.rawValue)
        e.append(UInt64(soundLooping.count))
        for looping in soundLooping { EffectsCaptureCoding.encode(looping, into: &e) }
        e.appendFixed(generator.currentState)
        for list in [history, bag] {
            e.append(UInt64(list.count))
            for index in list { e.append(index) }
        }
        e.appendOptional(lastShuffled) { $0.append($1) }
        e.append(sequenceNext)
        e.appendOptional(lastTriggerFrame) { $0.append($1) }
    }

    /// Sets what ``CaptureKind/effectsEventDeclared`` recorded of the event's
    /// settings and choices, for a replay. Buses are the replay engine's.
    ///
    /// - Parameter decoder: The record's decoder, at the event's state.
    /// - Throws: When the state does not decode or names what the event does not have.
    package func restoreCaptureState(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) {
        guard let engine else { throw .malformed("event \(name) has no engine") }
        let mode = try Self.mode(&decoder)
        let avoid = try decoder.int(in: 0...1_000_000)
        let randomization = try Self.randomization(&decoder)
        let volume = try decoder.float()
        let priority = try decoder.int()
        let bus = try EffectsCaptureCoding.bus(&decoder, engine: engine)
        let cooldown = try EffectsCaptureCoding.time(&decoder)
        let limit = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
            try d.int(in: 1...Int.max)
        }
        let steal = try Self.stealPolicy(&decoder)
        let loopCount = try decoder.count(maximum: sounds.count)
        var looping: [Looping] = []
        for _ in 0..<loopCount { looping.append(try EffectsCaptureCoding.looping(&decoder)) }
        let state = try decoder.fixed(UInt64.self)
        var lists: [[Int]] = []
        for _ in 0..<2 {
            let count = try decoder.count(maximum: 1_000_000)
            var list: [Int] = []
            for _ in 0..<count { list.append(try decoder.int(in: 0...(sounds.count - 1))) }
            lists.append(list)
        }
        let shuffled = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
            try d.int(in: 0...(sounds.count - 1))
        }
        let next = try decoder.int(in: 0...(sounds.count - 1))
        let trigger = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in try d.int64() }
        engine.withLock {
            (modeValue, avoidLast, randomizationValue, volumeValue) = (mode, avoid, randomization, volume)
            (priorityValue, busValue, cooldownValue, instanceLimit) = (priority, bus, cooldown, limit)
            stealPolicyValue = steal
            soundLooping = looping
            generator = SplitMix64(seed: state)
            (history, bag, lastShuffled, sequenceNext, lastTriggerFrame) = (lists[0], lists[1], shuffled, next, trigger)
        }
    }

    /// Reads a mode by its name.
    ///
    /// - Parameter decoder: The record's decoder.
    package static func mode(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) -> PlaybackMode {
        let name = try decoder.string(maximumBytes: 32)
        guard let mode = PlaybackMode(rawValue: name) else { throw .malformed("event mode \(name)") }
        return mode
    }

    /// Reads a steal policy by its name.
    ///
    /// - Parameter decoder: The record's decoder.
    package static func stealPolicy(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) -> StealPolicy {
        let name = try decoder.string(maximumBytes: 32)
        guard let policy = StealPolicy(rawValue: name) else { throw .malformed("steal policy \(name)") }
        return policy
    }
}
