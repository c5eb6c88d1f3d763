import BackbeatEngine

/// The effects layer's state on one engine: its voice pool, sound cache,
/// listener, environment mixer and voice glides, each made on first use.
///
/// The engine keeps it in the one slot it has for the layer above
/// (``AudioEngine/effectsState``, typed `AnyObject` since the engine cannot
/// name this module's types) for as long as it lives, and never looks
/// inside. It holds no engine: each part keeps its own weak reference. Made,
/// it shows itself to a monitor (``EffectsTelemetry``).
final class EffectsState: @unchecked Sendable {
    // @unchecked: read and written only under the engine lock (its accessors
    // on AudioEngine check the lock in debug builds).

    /// The voice pool (see ``AudioEngine/voicePoolLocked``).
    var pool: VoicePool?
    /// The cache of decoded sounds (see ``AudioEngine/effectCacheLocked``).
    var cache: SoundCache?
    /// The listener (see ``AudioEngine/listenerLocked``).
    var listener: Listener?
    /// The environment's reverb (see ``AudioEngine/environmentLocked``).
    var environment: EnvironmentMixer?
    /// The reverbs of the rooms the listener is not in (see ``AudioEngine/roomReverbsLocked``).
    var roomReverbs: RoomReverbMixer?
    /// The gliding voices (see ``AudioEngine/voiceGlidesLocked``).
    var glides: VoiceGlides?
    /// What a monitor sees of the effects, and the snapshots it may turn on by name.
    let telemetry: EffectsTelemetry
    /// What a capture that starts later needs of the effects, and the capture's move batches.
    let capture: EffectsCaptureObserver

    init(engine: AudioEngine) {
        telemetry = EffectsTelemetry(engine: engine)
        capture = EffectsCaptureObserver(engine: engine)
    }
}

extension AudioEngine {
    /// The effects' state on this engine, made on first use. With the lock held.
    var effectsLocked: EffectsState {
        #if DEBUG
        preconditionLocked()
        #endif
        // Only this module fills the slot, always with an EffectsState: the
        // cast is checked in debug builds and free in release ones.
        if let state = effectsState { return unsafeDowncast(state, to: EffectsState.self) }
        let state = EffectsState(engine: self)
        effectsState = state
        addTelemetryContributorLocked(state.telemetry)
        addCaptureObserverLocked(state.capture)
        return state
    }

    /// The effects' state if anything made it, without making it. With the lock held.
    var existingEffectsLocked: EffectsState? {
        #if DEBUG
        preconditionLocked()
        #endif
        return effectsState.map { unsafeDowncast($0, to: EffectsState.self) }
    }
}
