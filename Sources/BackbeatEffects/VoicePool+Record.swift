import BackbeatEngine
import BackbeatOpenAL

extension VoicePool {
    /// What the pool keeps for one voice: its row, its source and queue,
    /// the time it has played, and where it is in being started, stolen or
    /// put to sleep. Each ``Voice`` carries one (``Voice/record``), stored
    /// inline so the update step reads it with no extra hop; only the pool
    /// and its update step read or write it, under the engine lock. The
    /// voice's own settings (volume, rate, position, cone) stay on the voice.
    struct Record {
        // Its head, up to `startFrame`, is what a monitor's snapshot reads
        // of every voice (see `Voice.phase`).

        /// Its row in the pool's table while it is alive (-1: none).
        var slot = -1
        /// Virtual and out of earshot, asleep in the pool's table: no update step
        /// visits it; its time since ``dormantSince`` is worked out when asked for
        /// or when it wakes (the pool keeps it, not the list of voices).
        var isDormant = false
        /// The OpenAL source it holds while audible (or fading out, or paused).
        var source: ALSource?
        /// Gain last sent to OpenAL, to skip redundant calls.
        var appliedGain: Float = -1
        /// The sound as it was when its file was reloaded while this voice
        /// played: the voice finishes on it (nil: it plays the sound's current buffer).
        var pinned: RetiredSound?
        /// Sound frames played since the start, across loops: read from OpenAL when
        /// a voice pauses or loses its source, advanced by engine time otherwise.
        var played: Double = 0
        /// The last update that advanced `played` while playing.
        var lastPlayedFrame: Int64 = 0
        /// The engine frame its sound began on.
        var startFrame: Int64 = 0
        /// The update step its ``played`` count was last brought up to before it went dormant.
        var dormantSince: Int64 = 0
        /// A virtual voice's time stood still at its last update step (it or its
        /// bus was paused): the step that finds it playing again counts one period.
        var timeStands = false
        /// What the level's geometry lets through to the listener, as
        /// BackbeatAcoustics estimates it from the voice's room and the
        /// portals between (1: nothing in the way, or no level): a factor of
        /// its audibility, so a voice behind a closed door neither wakes nor
        /// takes a source as early.
        var acousticGain: Float = 1
        /// Buffers queued on its source (the pool counts them instead of asking OpenAL).
        var queuedBuffers = 0
        /// The first update step that needs to look at its queue.
        var nextQueueCheck: Int64 = 0
        /// How much earlier a step may look at its queue: on a device, an endless
        /// loop counting its wraps (a look per half round) is looked at on any
        /// step in the last half of that span, so one wakeup serves many voices.
        var queueCheckSlack: Int64 = 0
        /// When the voice was asked to start, for "oldest" in stealing.
        var requestFrame: Int64 = 0
        /// It waited for its sound to load before it started (said by its start event).
        var startedAfterLoad = false
        /// `played` when the current source was attached (less its start offset).
        var playedBeforeAttach = 0
        /// Frames of the sound's buffers unqueued so far (finite loops) and the silent lead-in.
        var unqueuedFrames = 0
        var leadInFrames = 0
        var leadInBuffer: ALBufferName?
        /// Plays of the sound (of its loop region, when it has loop points) still to queue (finite loops).
        var playsToQueue = 0
        /// A sound with loop points: its intro is still to queue, is queued, and its tail is still to queue.
        var introToQueue = false
        var introInQueue = false
        var tailToQueue = false
        /// An endless loop whose queued copies OpenAL loops over by itself
        /// (AL_LOOPING), so the update step never queues again; ``loopOffset`` is
        /// the source's offset in that queue at the last check, to count its wraps.
        var loopsInPlace = false
        var loopOffset = 0
        /// The update step that last brought its time up to date.
        var lastUpdateFrame: Int64 = 0
        /// The frame a voice waiting for its load or a source should start on.
        var scheduledTarget: Int64 = 0
        /// It stole a source and waits for the victim's fade-out.
        var awaitingHandoff = false
        /// It is in the pool's list and counted per sound.
        var isCounted = false
        /// The level the listener hears it at (volume, buses, distance and cone),
        /// from the pool's last audibility pass: what stealing and virtual voices go by.
        var audibility: Float = 1
    }
}
