import BackbeatCapture
import BackbeatEngine
import BackbeatMedia

/// The effects' part of a capture on one engine: writes the state a replay
/// needs when a capture starts after the effects were used (the listener,
/// HRTF, the environment), and keeps the packing state of
/// ``AudioEngine/moveVoices(_:to:)`` batches for the capture being written.
/// Under the engine lock.
final class EffectsCaptureObserver: CaptureObserver {
    weak var engine: AudioEngine?
    /// The capture the batch coder's state belongs to.
    private var generation: UInt32 = 0
    private var batches = MoveBatchCoding()
    /// The last room-reverb record's payload and its capture (``AudioEngine/recordRoomReverbsLocked(_:over:)``).
    var roomReverbsRecorded: (generation: UInt32, bytes: [UInt8])?

    init(engine: AudioEngine) { self.engine = engine }

    func captureDidStartLocked(_ recorder: CaptureRecorder) {
        guard let engine, let effects = engine.existingEffectsLocked else { return }
        engine.recordLocked(.effectsState) { encoder in Self.encodeState(of: effects, into: &encoder) }
    }

    /// Writes a move batch, packed against the capture's previous ones.
    func recordLocked(_ voices: [Voice], _ positions: [Audio3DPoint], recorder: CaptureRecorder) {
        guard let engine else { return }
        if generation != recorder.generation {
            generation = recorder.generation
            batches = MoveBatchCoding()
        }
        engine.recordLocked(.effectsVoiceMoveBatch) { encoder in
            batches.encode(count: voices.count, id: { voices[$0].id.raw }, position: { positions[$0] }, into: &encoder)
        }
    }

    /// The effects' state (``CaptureKind/effectsState``).
    static func encodeState(of effects: EffectsState, into encoder: inout CaptureEncoder) {
        encoder.appendOptional(effects.listener) { encoder, listener in
            EffectsCaptureCoding.encode(listener.position, into: &encoder)
            EffectsCaptureCoding.encode(listener.forward, into: &encoder)
            EffectsCaptureCoding.encode(listener.up, into: &encoder)
            EffectsCaptureCoding.encode(listener.velocity, into: &encoder)
            encoder.append(listener.dopplerFactor)
            encoder.append(listener.speedOfSound)
            EffectsCaptureCoding.encode(listener.distanceParameters, into: &encoder)
            encoder.appendOptional(listener.followed) {
                EffectsCaptureCoding.encode($1.position, into: &$0)
                $0.append($1.frame)
            }
            EffectsCaptureCoding.encode(listener.outputType, into: &encoder)
            encoder.appendOptional(listener.hrtfDataSet) { $0.append($1) }
        }
        encoder.appendOptional(effects.pool) {
            $0.append($1.thresholdDecibels)
            $0.append($1.marginDecibels)
        }
        encoder.appendOptional(effects.cache) { $0.append($1.budget) }
        encoder.appendOptional(effects.environment) {
            EffectsCaptureCoding.encode($1.global, into: &$0)
            EffectsCaptureCoding.encode($1.zones, into: &$0)
        }
    }
}

extension AudioEngine {
    /// The effects' capture observer, made with the effects' state. With the lock held.
    var effectsCaptureLocked: EffectsCaptureObserver { effectsLocked.capture }

    /// Records a listener change. With the lock held.
    func recordListenerLocked(_ change: ListenerChange, _ argument: (inout CaptureEncoder) -> Void) {
        recordLocked(.effectsListener) { encoder in
            encoder.appendFixed(change.rawValue)
            argument(&encoder)
        }
    }

    /// Records a ``moveVoices(_:to:)`` batch, packed. With the lock held.
    func recordMoveBatchLocked(_ voices: [Voice], _ positions: [Audio3DPoint]) {
        guard let recorder = captureRecorder else { return }
        effectsCaptureLocked.recordLocked(voices, positions, recorder: recorder)
    }

    /// Sets the effects' state a capture recorded when it started
    /// (``CaptureKind/effectsState``), for a replay: the listener, HRTF,
    /// audibility, the cache budget and the environment, the reverb settled
    /// where the captured engine had it rather than gliding there.
    ///
    /// - Parameter decoder: The record's decoder.
    /// - Throws: When the record does not decode.
    package func restoreEffectsCaptureState(_ decoder: inout CaptureDecoder) throws(CaptureFormatError) {
        typealias Coding = EffectsCaptureCoding
        if try decoder.bool() {
            let position = try Coding.point(&decoder)
            let forward = try Coding.point(&decoder)
            let up = try Coding.point(&decoder)
            let velocity = try Coding.point(&decoder)
            let doppler = try decoder.float()
            let speed = try decoder.float()
            let distance = try Coding.distance(&decoder)
            let followed = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
                (position: try Coding.point(&d), frame: try d.int64())
            }
            let outputType = try Coding.outputType(&decoder)
            let dataSet = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
                try d.string(maximumBytes: 256)
            }
            withLock {
                let listener = listenerLocked
                (listener.position, listener.forward, listener.up, listener.velocity) = (
                    position, forward, up, velocity
                )
                (listener.dopplerFactor, listener.speedOfSound) = (doppler, speed)
                listener.distanceParameters = distance
                listener.followed = followed
                listener.applyLocked()
                if listener.outputType != outputType || listener.hrtfDataSet != dataSet {
                    listener.outputType = outputType
                    listener.hrtfDataSet = dataSet
                    listener.applyHRTFLocked()
                }
                voicePoolLocked.audibilityDirty = true
            }
        }
        if try decoder.bool() {
            let threshold = try decoder.float()
            let margin = try decoder.float()
            withLock {
                _ = voicePoolLocked.setThreshold(decibels: threshold)
                _ = voicePoolLocked.setMargin(decibels: margin)
            }
        }
        if try decoder.bool() {
            let budget = try decoder.int(in: 0...Int.max)
            withLock { effectCacheLocked.budget = budget }
        }
        if try decoder.bool() {
            let global = try Coding.reverb(&decoder)
            let zones = try Coding.zones(&decoder)
            withLock {
                let mixer = environmentLocked
                mixer.global = global
                mixer.zones = zones
                mixer.settleLocked(at: currentFrameLocked)
            }
        }
    }
}
