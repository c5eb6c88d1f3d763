import BackbeatEngine

/// How many voices cost OpenAL a mix at one moment, and how many of those
/// also cost it a filter or a send: what a benchmark logs to explain where
/// the render thread's time goes. OpenAL Soft 1.19 runs a band's biquad
/// whenever that band's gain is not exactly 1, and mixes a source into an
/// effect slot whenever the send has one.
package struct MixCensus: Sendable {
    /// Voices holding a source.
    package var real = 0
    /// Of those, voices whose direct path runs the low shelf (gain LF not 1).
    package var lowShelf = 0
    /// Voices whose direct path runs the high shelf (gain HF not 1).
    package var highShelf = 0
    /// Voices whose direct path runs either shelf.
    package var filtered = 0
    /// Voices sending to an effect slot (the reverb's or a bus effect's).
    package var sending = 0
    /// Voices awake but virtual (the update step visits them; no source).
    package var virtual = 0
    /// Real voices that the level's own result for them (``VoiceMix/acoustic``,
    /// its broadband gain, the loudest band) would put below the audibility threshold, where
    /// the room-table estimate (``VoicePool/Record/acousticGain``) does not.
    package var quietByPath = 0
    /// Effect slots OpenAL runs an effect in every mix: the environment
    /// reverb's and the rooms' reverbs' (``RoomReverbMixer``).
    package var effectSlots = 0

    /// An empty census.
    package init() {}

    /// Both censuses' counts summed (over several moments).
    ///
    /// - Parameter other: The census to add.
    package func adding(_ other: MixCensus) -> MixCensus {
        var sum = self
        sum.real += other.real
        sum.lowShelf += other.lowShelf
        sum.highShelf += other.highShelf
        sum.filtered += other.filtered
        sum.sending += other.sending
        sum.virtual += other.virtual
        sum.quietByPath += other.quietByPath
        sum.effectSlots += other.effectSlots
        return sum
    }
}

extension AudioEngine {
    /// Counts the pool's voices by what they cost OpenAL now (see ``MixCensus``).
    /// A read: it wakes no update step.
    package func mixCensus() -> MixCensus {
        withLock(waking: false) {
            var census = MixCensus()
            census.effectSlots =
                (existingEffectsLocked?.environment?.slot == nil ? 0 : 1)
                + (existingEffectsLocked?.roomReverbs?.rooms.count ?? 0)
            guard let pool = existingEffectsLocked?.pool else { return census }
            for voice in pool.voices where !voice.record.isDormant && voice.phase != .finished {
                guard voice.record.source != nil else {
                    census.virtual += 1
                    continue
                }
                census.real += 1
                let direct = voice.mix.appliedDirect ?? .open
                let low = direct.gainLF != 1
                let high = direct.gainHF != 1
                if low { census.lowShelf += 1 }
                if high { census.highShelf += 1 }
                if low || high { census.filtered += 1 }
                if voice.mix.appliedSend?.slot != nil || voice.mix.appliedBusSend?.slot != nil { census.sending += 1 }
                // The shelves only lower: the broadband gain is the loudest band.
                let byPath = voice.record.audibility / max(voice.record.acousticGain, 1e-9) * voice.mix.acoustic.gain
                if byPath < pool.thresholdGain { census.quietByPath += 1 }
            }
            return census
        }
    }
}
