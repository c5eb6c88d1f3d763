import BackbeatMedia
import BackbeatSupport

/// Something the mixer did that a game may want to know: voices starting,
/// finishing, being stolen or refused, sounds loading and leaving the cache,
/// bus fades completing, the output device going away.
public enum PlaybackEvent: Sendable, Equatable {
    /// Why a voice could not play.
    public enum RefusalReason: Sendable, Equatable {
        /// Every source is busy with a more important voice.
        case allVoicesMoreImportant
        /// The sound was triggered again sooner than its minimum retrigger interval.
        case retriggeredTooSoon
        /// The sound could not be loaded.
        case loadFailed(BackbeatError)
    }

    /// A voice became audible; `afterLoad` is true when it waited for its sound to load.
    case voiceStarted(voice: VoiceID, sound: String, at: MediaTime, afterLoad: Bool)
    /// A voice ended: `completed` is true when it played to its end, false when stopped or stolen.
    case voiceFinished(voice: VoiceID, sound: String, completed: Bool)
    /// A voice lost its source to a more important one.
    case voiceStolen(voice: VoiceID, sound: String, by: VoiceID)
    /// A looping voice lost its source and goes on silently, keeping its time.
    case voiceVirtualized(voice: VoiceID, sound: String)
    /// A virtual voice got a source back and is audible again.
    case voiceRealized(voice: VoiceID, sound: String)
    /// A voice could not play.
    case voiceRefused(voice: VoiceID, sound: String, reason: RefusalReason)
    /// A sound finished loading into the cache.
    case soundLoaded(sound: String)
    /// A sound was evicted from the cache to stay within the budget.
    case soundEvicted(sound: String)
    /// A bus fade reached its target.
    case fadeCompleted(bus: String)
    /// The output device went away. Everything moved to `replacement`; nil
    /// means no device could be opened and the engine renders without sound.
    case outputLost(device: String, replacement: String?, reason: String)
    /// The engine moved to the real device `device` by itself, everything
    /// where it was: after a loss, the device (its server) came back; or,
    /// for an engine opened on the default device, the default output
    /// changed. `previous` names the real device left, nil after a loss.
    case outputChanged(device: String, previous: String?, reason: String)
}
