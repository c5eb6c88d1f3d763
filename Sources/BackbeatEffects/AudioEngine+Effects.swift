import BackbeatCapture
import BackbeatEngine
import BackbeatMedia

extension AudioEngine {
    /// The engine's voice pool, made on first use, with the lock held. It
    /// runs first in every update step, so its voices see the step's bus gains
    /// before anything else the step changes.
    var voicePoolLocked: VoicePool {
        let effects = effectsLocked
        if let pool = effects.pool { return pool }
        let pool = VoicePool(engine: self, limit: maximumVoices)
        registerLocked(pool, first: true)
        effects.pool = pool
        return pool
    }

    /// The engine's cache of decoded sound effects, made on first use (64 MiB), with the lock held.
    var effectCacheLocked: SoundCache {
        let effects = effectsLocked
        if let cache = effects.cache { return cache }
        let cache = SoundCache(engine: self, budget: 64 << 20)
        effects.cache = cache
        return cache
    }

    /// The byte budget of the sound effect cache (default 64 MiB). Lowering it
    /// evicts at the next load; a sound larger than the budget fails to load.
    public var effectCacheBudget: Int {
        get { withLock { effectCacheLocked.budget } }
        set {
            withLock {
                recordLocked(.effectsCacheBudget) { $0.append(newValue) }
                effectCacheLocked.budget = max(0, newValue)
            }
        }
    }

    /// Bytes the effect cache holds now: resident sounds, and the old buffers
    /// of reloaded sounds that voices still play.
    package var effectCacheUsedBytes: Int { withLock { effectCacheLocked.usedBytes } }

    /// OpenAL sources the voice pool owns (what the device grants, less a
    /// reserve for music streams).
    package var voiceSourceCount: Int { withLock { voicePoolLocked.sourceCount } }

    // MARK: For the benchmark program (package access, not public API)

    /// The most voices the pool makes audible at once: its sources less the
    /// hand-off reserve. More looping voices than this go virtual.
    package var audibleVoiceCapacity: Int { withLock { voicePoolLocked.capacity } }

    /// Times an effect voice's source ran dry between two update steps and had
    /// to be restarted (an effect underrun), since the engine opened.
    package var effectVoiceRestarts: Int { withLock { voicePoolLocked.restarts } }

    /// Times a virtual voice went dormant (out of earshot, off the update
    /// step's list) and woke again, since the engine opened.
    package var dormantTransitions: (sleeps: Int, wakes: Int) {
        withLock { (voicePoolLocked.sleeps, voicePoolLocked.wakes) }
    }

    /// Times a voice took back a source that still held its sound, looping in
    /// place, from a voice that gave it back at the audibility threshold (an
    /// offset and a play, no queue or placement set again), since the engine opened.
    package var warmSourceStarts: Int { withLock { voicePoolLocked.warmStarts } }
}

extension Bus {
    /// Lowers the bus by `decibels` (a negative number, such as -12) with an
    /// attack, and raises it back over `release` when the returned duck is
    /// released — by ``Duck/release()`` or when `voice` finishes, whichever
    /// comes first. Several ducks at once take the deepest.
    ///
    /// - Parameters:
    ///   - decibels: How far to lower the bus, in dB (negative).
    ///   - attack: How long the bus takes to go down, in engine time.
    ///   - release: How long it takes to come back up once the duck is released.
    ///   - voice: A voice whose end releases the duck; nil for none.
    /// - Returns: The duck, to release by hand.
    @discardableResult
    public func duck(by decibels: Float, attack: MediaTime, release: MediaTime, until voice: Voice?) -> Duck {
        duck(by: decibels, attack: attack, release: release, until: voice as (any DuckReleaseTrigger)?)
    }
}
