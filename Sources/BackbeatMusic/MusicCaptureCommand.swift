import BackbeatCapture

/// The record kinds of the music players (``CaptureKind/musicRange``).
///
/// Players and queue items are named by capture ids, given by their
/// declaring records. A record about "a player" names any of the three
/// (``QueuePlayer``, ``MusicPlayer``, ``AdaptiveMusicPlayer``) and is applied
/// to whichever the id names. Assets are written as `MusicCaptureValues`
/// writes them: the file's fingerprint (path, size, content hash), or small
/// in-memory bytes whole, with loop points and looping. Times are the
/// game's `MediaTime`s (value, timescale), floats their bit patterns.
extension CaptureKind {
    /// A ``QueuePlayer`` is declared. Payload: its id, the count of its
    /// items, each item's id (declared before by ``musicItemDeclare``).
    package static let queuePlayerDeclare = CaptureKind(0x200)
    /// The application ``MusicPlayer`` is declared. Payload: its id.
    package static let musicPlayerDeclare = CaptureKind(0x201)
    /// An ``AdaptiveMusicPlayer`` is declared. Payload: its id, the count of
    /// sections, each: name, an optional tempo (beats per minute as Double,
    /// beats per bar, beat unit), the count of stems, each: layer, asset.
    package static let adaptivePlayerDeclare = CaptureKind(0x202)
    /// A ``PlayerItem`` is declared. Payload: its id, its asset.
    package static let musicItemDeclare = CaptureKind(0x203)
    /// ``QueuePlayer/insert(_:after:)`` that succeeded. Payload: player id, item id, the id it follows (0: the end).
    package static let queueInsert = CaptureKind(0x204)
    /// ``QueuePlayer/remove(_:)``. Payload: player id, item id.
    package static let queueRemove = CaptureKind(0x205)
    /// ``QueuePlayer/removeAllItems()``. Payload: player id.
    package static let queueRemoveAll = CaptureKind(0x206)
    /// `skipToNextItem()` of a queue or the music player. Payload: player id.
    package static let musicSkipNext = CaptureKind(0x207)
    /// ``QueuePlayer/actionAtItemEnd`` set. Payload: player id, 0 advance, 1 pause, 2 none.
    package static let queueActionAtItemEnd = CaptureKind(0x208)
    /// ``QueuePlayer/loopsQueue`` set. Payload: player id, Bool.
    package static let queueLoops = CaptureKind(0x209)
    /// `play()` of a queue or the music player. Payload: player id.
    package static let musicPlay = CaptureKind(0x20A)
    /// `pause()` of any player. Payload: player id.
    package static let musicPause = CaptureKind(0x20B)
    /// `seek(to:)` of any player. Payload: player id, time.
    package static let musicSeek = CaptureKind(0x20C)
    /// ``QueuePlayer/isMuted`` set. Payload: player id, Bool.
    package static let queueMute = CaptureKind(0x20D)
    /// ``QueuePlayer/setCrossfadeDuration(_:)`` that succeeded. Payload: player id, time.
    package static let queueCrossfade = CaptureKind(0x20E)
    /// `volume` of any player set. Payload: player id, Float.
    package static let musicVolume = CaptureKind(0x20F)
    /// `fade(to:duration:curve:)` of any player. Payload: player id, target (Float), time, curve.
    package static let musicFade = CaptureKind(0x210)
    /// `fadeOut(duration:)` of any player. Payload: player id, time.
    package static let musicFadeOut = CaptureKind(0x211)
    /// `MusicPlayer.setQueue(items:)` (and the library's queues). Payload:
    /// player id, the count of items, each: persistent id (UInt64), title,
    /// optional artist, optional album title, duration (time), asset.
    package static let musicSetQueue = CaptureKind(0x212)
    /// ``MusicPlayer/repeatMode`` set. Payload: player id, the mode's raw value (String).
    package static let musicRepeatMode = CaptureKind(0x213)
    /// ``MusicPlayer/shuffleMode`` set. Payload: player id, the mode's raw value (String).
    package static let musicShuffleMode = CaptureKind(0x214)
    /// ``MusicPlayer/seedShuffle(_:)``. Payload: player id, the seed (UInt64).
    package static let musicSeedShuffle = CaptureKind(0x215)
    /// ``MusicPlayer/prepareToPlay()`` that succeeded. Payload: player id.
    package static let musicPrepare = CaptureKind(0x216)
    /// `stop()` of the music or an adaptive player. Payload: player id.
    package static let musicStop = CaptureKind(0x217)
    /// ``MusicPlayer/beginSeekingForward()`` or backward. Payload: player id, Bool (forward).
    package static let musicBeginSeeking = CaptureKind(0x218)
    /// ``MusicPlayer/endSeeking()``. Payload: player id.
    package static let musicEndSeeking = CaptureKind(0x219)
    /// ``MusicPlayer/skipToPreviousItem()``. Payload: player id.
    package static let musicSkipPrevious = CaptureKind(0x21A)
    /// ``MusicPlayer/skipToBeginning()``. Payload: player id.
    package static let musicSkipToBeginning = CaptureKind(0x21B)
    /// ``AdaptiveMusicPlayer/transition(to:quantization:style:via:)`` (and
    /// `play(section:)`) that succeeded. Payload: player id, section name,
    /// quantization's raw value (String), style (0 cut; 1 crossfade, then
    /// its time), an optional transition segment (asset).
    package static let adaptiveTransition = CaptureKind(0x21C)
    /// ``AdaptiveMusicPlayer/playStinger(_:quantization:)`` that succeeded.
    /// Payload: player id, asset, quantization's raw value (String).
    package static let adaptiveStinger = CaptureKind(0x21D)
    /// ``AdaptiveMusicPlayer/resume()``. Payload: player id.
    package static let adaptiveResume = CaptureKind(0x21E)
    /// ``AdaptiveMusicPlayer/setLayerGain(_:to:duration:)``. Payload: player id, layer, gain (Float), time.
    package static let adaptiveLayerGain = CaptureKind(0x21F)
    /// ``AdaptiveMusicPlayer/bindLayer(_:to:curve:)``. Payload: player id, layer, parameter id, curve.
    package static let adaptiveBindLayer = CaptureKind(0x220)
    /// ``AdaptiveMusicPlayer/bindVolume(to:curve:)``. Payload: player id, parameter id, curve.
    package static let adaptiveBindVolume = CaptureKind(0x221)
    /// The game let go of a player (its last reference): its music stops
    /// there, where the engine closes its streams. Payload: player id.
    package static let musicPlayerReleased = CaptureKind(0x222)
}
