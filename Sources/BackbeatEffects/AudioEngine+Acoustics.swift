import BackbeatEngine
import BackbeatMedia

/// A positioned voice as BackbeatAcoustics sees it at one moment.
package struct AcousticVoiceState: Sendable {
    /// The voice.
    package let voice: Voice
    /// Where it is, in metres.
    package let position: SIMD3<Float>
    /// Its radius in metres (see ``Voice/sourceRadius``).
    package let radius: Float
    /// Whether it holds an OpenAL source (heard now), rather than virtual.
    package let isReal: Bool
    /// Its audibility estimate from the level now (see ``AudioEngine/setAcousticGains(_:)``).
    package let acousticGain: Float
}

/// What BackbeatAcoustics sets on one voice: its direct path's and its
/// reverb send's band-pass.
package struct AcousticVoiceFilter: Sendable {
    /// The voice.
    package let voice: Voice
    /// The direct path's broadband, low and high gains.
    package let direct: FilterGains
    /// The reverb send's.
    package let send: FilterGains
    /// The direction (from the listener, unit length) the voice is heard
    /// from; nil where the game put it.
    package let direction: SIMD3<Float>?
    /// The room whose reverb the send feeds, when the voice is in a room the
    /// listener is not in (see ``AudioEngine/setRoomReverbs(_:over:)``); nil
    /// for the environment reverb.
    package let reverbRoom: String?

    /// A voice's filters.
    ///
    /// - Parameters:
    ///   - voice: The voice.
    ///   - direct: The direct path's gains.
    ///   - send: The reverb send's gains.
    ///   - direction: The direction it is heard from, from the listener; nil for where the game put it.
    ///   - reverbRoom: The room whose reverb its send feeds; nil for the environment reverb.
    package init(
        voice: Voice, direct: FilterGains, send: FilterGains, direction: SIMD3<Float>? = nil, reverbRoom: String? = nil
    ) {
        self.voice = voice
        self.direct = direct
        self.send = send
        self.direction = direction
        self.reverbRoom = reverbRoom
    }
}

extension AudioEngine {
    /// The listener's position and every positioned voice the update step
    /// visits (not dormant, not finished), read in one short hold of the
    /// lock: what a frame's acoustics start from.
    package func acousticSnapshot() -> (listener: SIMD3<Float>, voices: [AcousticVoiceState]) {
        // A read: it wakes no update step.
        withLock(waking: false) {
            let l = listenerLocked.position
            guard let pool = existingEffectsLocked?.pool else { return ([l.x, l.y, l.z], []) }
            var voices: [AcousticVoiceState] = []
            voices.reserveCapacity(pool.voices.count)
            for voice in pool.voices where voice.phase != .finished && !voice.record.isDormant {
                guard let p = voice.storedPosition else { continue }
                voices.append(
                    AcousticVoiceState(
                        voice: voice, position: [p.x, p.y, p.z], radius: voice.radiusValue,
                        isReal: voice.record.source != nil, acousticGain: voice.record.acousticGain))
            }
            return ([l.x, l.y, l.z], voices)
        }
    }

    /// Sets each voice's acoustic filters (see ``Voice/setAcousticFilter(_:over:)``)
    /// and direction in one hold of the lock, both gliding over `duration`.
    ///
    /// - Parameters:
    ///   - filters: The voices and their filters.
    ///   - duration: How long the glide takes in engine time; nil for the de-zipper time.
    package func setAcousticFilters(_ filters: [AcousticVoiceFilter], over duration: MediaTime?) {
        // Only a change asks for an update step: most of a frame's filters
        // (the virtual voices' estimates) are the ones the voices have.
        withLock(waking: false) {
            var heardChanged = false
            // The direction glides as long as the band gains.
            let frames = max(duration?.frames(atSampleRate: sampleRate) ?? 0, dezipperFrames)
            // What changed a voice, for the capture (nil, and nothing kept, without one).
            var changed: [AcousticVoiceFilter]? = captureRecorder == nil ? nil : []
            for filter in filters where filter.voice.phase != .finished {
                let direction = AcousticsCaptureCoding.heardDirection(filter.direction)
                var changes = false
                if filter.voice.mix.acousticDirection != direction {
                    filter.voice.setAcousticDirectionLocked(direction, glideFrames: frames, engine: self)
                    changes = true
                }
                let mix = filter.voice.mix
                if mix.acoustic != filter.direct || mix.acousticSend != filter.send
                    || mix.reverbRoom != filter.reverbRoom
                {
                    changes = true
                    filter.voice.changeMixLocked(over: duration, engine: self) {
                        $0.acoustic = filter.direct
                        $0.acousticSend = filter.send
                        $0.reverbRoom = filter.reverbRoom
                    }
                }
                if changes {
                    // A voice without a source takes its filter when it gets one: no step for it.
                    heardChanged = heardChanged || filter.voice.record.source != nil
                    changed?.append(filter)
                }
            }
            if let changed { recordAcousticFiltersLocked(changed, over: duration) }
            if heardChanged { requestStepLocked() }
        }
    }

    /// Up to `limit` dormant voices (virtual, out of earshot, asleep in the
    /// pool's table) and where they are, from table row `start` on, and the
    /// row to go on from: a frame's share of them, for their estimate.
    ///
    /// - Parameters:
    ///   - start: The row to start from (0 at first; then the returned `next`).
    ///   - limit: The most voices to return.
    package func acousticDormantVoices(from start: Int, limit: Int) -> (
        voices: [AcousticVoiceState], next: Int
    ) {
        withLock(waking: false) {
            guard let pool = existingEffectsLocked?.pool else { return ([], 0) }
            let (found, next) = pool.dormantVoices(from: start, limit: limit)
            let voices = found.map { voice, p in
                AcousticVoiceState(
                    voice: voice, position: [p.x, p.y, p.z], radius: voice.radiusValue, isReal: false,
                    acousticGain: voice.record.acousticGain)
            }
            return (voices, next)
        }
    }

    /// Sets each voice's audibility estimate from the level (what reaches the
    /// listener, 0...1, from its room and the portals between) in one hold of
    /// the lock: the audibility pass multiplies it in, so a voice behind a
    /// closed door wakes and takes a source later.
    ///
    /// - Parameter gains: The voices and their estimates.
    package func setAcousticGains(_ gains: [(voice: Voice, gain: Float)]) {
        guard !gains.isEmpty else { return }
        // A step only where a voice may cross the threshold or wake (see VoicePool.setAcousticGain).
        withLock(waking: false) {
            guard let pool = existingEffectsLocked?.pool else { return }
            var changed: [(voice: UInt64, gain: Float)]? = captureRecorder == nil ? nil : []
            var needsStep = false
            for (voice, gain) in gains where voice.pool === pool {
                let set = pool.setAcousticGain(gain, of: voice)
                if set.changed { changed?.append((voice.id.raw, voice.record.acousticGain)) }
                needsStep = needsStep || set.needsStep
            }
            if let changed { recordAcousticGainsLocked(changed) }
            if needsStep { requestStepLocked() }
        }
    }

    /// A voice's audibility estimate from the level (1 until one is set).
    ///
    /// - Parameter voice: The voice.
    package func acousticGain(of voice: Voice) -> Float {
        withLock { voice.record.acousticGain }
    }
}

extension Voice {
    /// What BackbeatAcoustics last set on the voice's direct path (open until it sets one).
    package var acousticFilter: FilterGains {
        guard let engine = sound.engine else { return mix.acoustic }
        return engine.withLock { mix.acoustic }
    }
}
