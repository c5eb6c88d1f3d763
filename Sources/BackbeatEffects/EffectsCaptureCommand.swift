import BackbeatCapture

/// The record kinds BackbeatEffects writes (``CaptureKind/effectsRange``).
///
/// Objects are named by their capture ids (declared once, by the first
/// record that needs them); voices by the ``VoiceID`` the captured engine
/// gave them. Points are three `Float` bit patterns (x, y, z); times are a
/// `MediaTime` (value as zigzag varint, timescale as varint); an optional
/// value is a presence byte, then the value (``CaptureEncoder/appendOptional(_:_:)``).
/// The shared encodings are in `EffectsCaptureCoding.swift`.
extension CaptureKind {
    /// A sound was seen for the first time: its id (`UInt32`), its name, then
    /// how to make it again: `0` a file (``FileFingerprint``, then its
    /// explicit loop points, optional); `1` PCM made in code (sample rate,
    /// channels, optional loop points, then its interleaved samples as
    /// `Float` bit patterns, at most 1 MiB of them); `2` encoded bytes in
    /// memory or an archive entry (its URL string, optional loop points, its
    /// bytes, at most 1 MiB); `3` too large to keep (its byte count and FNV-1a
    /// hash: a replay of it fails, naming it).
    package static let effectsSoundDeclared = CaptureKind(0x100)
    /// A sound's limit changed: its id, then `0` and
    /// ``SoundEffect/maximumInstances`` (optional `Int`), or `1` and
    /// ``SoundEffect/minimumRetriggerInterval`` (a time).
    package static let effectsSoundSetting = CaptureKind(0x101)
    /// ``SoundEffect/preload(completion:)``: the sound's id.
    package static let effectsSoundPreload = CaptureKind(0x102)
    /// ``SoundEffect/play(at:volume:pan:position:rate:looping:priority:bus:completion:)``:
    /// the sound's id, the voice's id (`UInt64`), the time (optional), volume,
    /// pan (`Float`s), position (optional point), rate (`Float`), looping,
    /// priority (`Int`) and the bus (see `EffectsCaptureCoding.encodeBus`).
    package static let effectsVoicePlay = CaptureKind(0x103)
    /// A call on a playing voice: its id (`UInt64`), then a
    /// ``VoiceChange`` tag and that call's arguments, as the game gave them.
    package static let effectsVoiceChange = CaptureKind(0x104)
    /// ``AudioEngine/moveVoices(_:to:)``: a batch of positions, packed by
    /// ``MoveBatchCoding``: a flag byte (bit 0: the same voices, in the same
    /// order, as the previous batch, so their ids are left out), else the
    /// count and the ids as zigzag deltas; then per voice and axis the
    /// position's bit pattern less the one predicted from the voice's last
    /// three (wrapping 32-bit arithmetic, zigzag varint), so smooth motion
    /// costs a byte or two an axis and the replay gets the exact bits.
    package static let effectsVoiceMoveBatch = CaptureKind(0x105)
    /// A sound event was seen for the first time: its id, then `0` and a
    /// definition made in code (name, sound ids, mode, weights, seed) or `1`
    /// and an event of a bank (the bank's id, the event's name); then its
    /// settings and the state of its generator (``SoundEvent/captureState``),
    /// so its next choices replay even when the capture began mid-session.
    package static let effectsEventDeclared = CaptureKind(0x106)
    /// A setting of a sound event changed: its id, a ``EventSetting`` tag and the value.
    package static let effectsEventSetting = CaptureKind(0x107)
    /// ``SoundEvent/play(at:volume:position:bus:)``: the event's id, time
    /// (optional), volume, position (optional), bus, then the ids of the
    /// voices it started (none when it was refused).
    package static let effectsEventPlay = CaptureKind(0x108)
    /// ``SoundEvent/reseed(_:)``: the event's id and the seed (`UInt64` fixed).
    package static let effectsEventReseed = CaptureKind(0x109)
    /// A sound bank was seen for the first time: its id, then `0` a bank
    /// file (``FileFingerprint``), `1` a bank from bytes (its name, its JSON
    /// text and the folder its sounds are found in), `2` a bank in a zip
    /// archive (the archive's ``FileFingerprint`` and the path inside), or
    /// `3` one a replay cannot make (its name and why: its sounds come from
    /// the game's own resolver); then the names of the buses it declares (a
    /// replay passes it the buses by those names that records made, so the
    /// bank makes only the rest).
    package static let effectsBankDeclared = CaptureKind(0x10A)
    /// A listener setting: a ``ListenerChange`` tag and its value.
    package static let effectsListener = CaptureKind(0x10B)
    /// ``AudioEngine/moveListener(to:orientation:)``: the point and the optional orientation (two points).
    package static let effectsListenerMove = CaptureKind(0x10C)
    /// ``AudioEngine/setReverbParameters(_:over:curve:)`` (and ``AudioEngine/reverbParameters``):
    /// the reverb, the optional glide time and the curve.
    package static let effectsReverb = CaptureKind(0x10D)
    /// ``AudioEngine/reverbZones`` set: the count, then each zone (name,
    /// shape: `0` sphere centre and radius, `1` box centre and size; fade distance; reverb).
    package static let effectsReverbZones = CaptureKind(0x10E)
    /// ``AudioEngine/activate(_:over:curve:priority:)`` (by the game or a
    /// monitor): the activation's id, the snapshot, the glide time, curve and priority.
    package static let effectsSnapshotActivate = CaptureKind(0x10F)
    /// ``ActiveMixSnapshot/release(over:curve:)`` (by the game or a monitor):
    /// the activation's id, the glide time and curve.
    package static let effectsSnapshotRelease = CaptureKind(0x110)
    /// ``AudioEngine/effectCacheBudget`` set: the bytes (`Int`).
    package static let effectsCacheBudget = CaptureKind(0x111)
    /// The effects' state when a capture starts after they were used: the
    /// listener (position, forward, up, velocity, Doppler factor, speed of
    /// sound, distance parameters, the point and frame it last followed),
    /// the output type, the HRTF data set, the audibility threshold and
    /// margin, the cache budget, the game-wide reverb and the zones.
    package static let effectsState = CaptureKind(0x112)
    /// ``AudioEngine/setAcousticFilters(_:over:)`` (BackbeatAcoustics' results
    /// for the voices heard): the glide time (optional), the count, then per
    /// voice that it changed its id (`UInt64`), a flag byte (bit 0: the send's
    /// gains equal the direct path's and are left out; bit 1: a direction
    /// follows; bit 2: a room follows), the direct path's gain, low and high
    /// gains (`Float`s), the send's unless bit 0, the direction it is heard
    /// from (a point) and the room whose reverb its send feeds (a string).
    /// Voices it left as they were are not written. See `AcousticsCaptureCoding.swift`.
    package static let effectsAcousticFilters = CaptureKind(0x113)
    /// ``AudioEngine/setAcousticGains(_:)`` (the level's audibility estimates):
    /// the count, then per voice whose estimate changed its id and the new
    /// estimate (`Float`, 0...1, never NaN).
    package static let effectsAcousticGains = CaptureKind(0x114)
    /// ``AudioEngine/setRoomReverbs(_:over:)`` (other rooms' reverbs heard
    /// through portals): the glide time (optional), the count, then per room
    /// its name, its reverb (panned toward the portal) and its level
    /// (`Float`, 0...1). A call the same as the one before is not written.
    package static let effectsRoomReverbs = CaptureKind(0x115)
    /// A voice's acoustics set on the voice itself (``Voice/setAcousticFilter(_:over:)``,
    /// ``Voice/setAcousticDirection(_:)``: what `Voice.apply(_:over:)` does):
    /// its id, then `0` and the direct path's three gains and the glide time
    /// (optional), or `1` and the direction (an optional point).
    package static let effectsAcousticVoice = CaptureKind(0x116)
}

/// What an ``CaptureKind/effectsVoiceChange`` record did to the voice.
package enum VoiceChange: UInt8, CaseIterable, Sendable {
    /// ``Voice/stop()`` (or a monitor's stop). No arguments.
    case stop = 0
    /// ``Voice/pause()``. No arguments.
    case pause
    /// ``Voice/resume()``. No arguments.
    case resume
    /// ``Voice/volume`` set: a `Float`.
    case volume
    /// ``Voice/pan`` set: a `Float`.
    case pan
    /// ``Voice/rate`` set: a `Float`.
    case rate
    /// ``Voice/position`` set: an optional point.
    case position
    /// ``Voice/velocity`` set: a point.
    case velocity
    /// ``Voice/direction`` set: an optional point.
    case direction
    /// ``Voice/cone`` set: four `Float`s.
    case cone
    /// ``Voice/distanceAttenuationParameters`` set: optional model byte and three `Float`s.
    case distance
    /// ``Voice/sourceRadius`` set: a `Float`.
    case radius
    /// ``Voice/renderingAlgorithm`` set: a byte.
    case rendering
    /// ``Voice/setVolume(_:over:curve:)``: a `Float`, an optional time, a curve.
    case volumeGlide
    /// ``Voice/setRate(_:over:curve:)``: as ``volumeGlide``.
    case rateGlide
    /// ``Voice/setPan(_:over:curve:)``: as ``volumeGlide``.
    case panGlide
    /// ``Voice/setReverbBlend(_:over:)``: a `Float` and an optional time.
    case reverbBlend
    /// ``Voice/setObstruction(_:over:)``: as ``reverbBlend``.
    case obstruction
    /// ``Voice/setOcclusion(_:over:)``: as ``reverbBlend``.
    case occlusion
    /// ``Voice/setFilter(_:over:)``: an optional filter and an optional time.
    case filter
    /// ``Voice/move(along:duration:)``: the points and a time.
    case moveAlong
    /// ``Voice/move(to:duration:)``: a point and a time.
    case moveTo
    /// ``Voice/bindRate(to:curve:)``: the parameter (its name) and the curve's points.
    case bindRate
    /// ``Voice/bindVolume(to:curve:)``: as ``bindRate``.
    case bindVolume
    /// ``Voice/bindFilterCutoff(to:curve:)``: as ``bindRate``.
    case bindFilterCutoff
}

/// What an ``CaptureKind/effectsEventSetting`` record changed.
package enum EventSetting: UInt8, CaseIterable, Sendable {
    /// ``SoundEvent/mode``: the mode's name.
    case mode = 0
    /// ``SoundEvent/avoidRepeatingLast``: an `Int`.
    case avoidRepeatingLast
    /// ``SoundEvent/randomization``: the ranges.
    case randomization
    /// ``SoundEvent/volume``: a `Float`.
    case volume
    /// ``SoundEvent/priority``: an `Int`.
    case priority
    /// ``SoundEvent/bus``: a bus.
    case bus
    /// ``SoundEvent/cooldown``: a time.
    case cooldown
    /// ``SoundEvent/maximumInstances``: an optional `Int`.
    case maximumInstances
    /// ``SoundEvent/stealPolicy``: the policy's name.
    case stealPolicy
}

/// What an ``CaptureKind/effectsListener`` record changed.
package enum ListenerChange: UInt8, CaseIterable, Sendable {
    /// ``AudioEngine/listenerPosition``: a point.
    case position = 0
    /// ``AudioEngine/listenerAngularOrientation``: yaw, pitch, roll.
    case angularOrientation
    /// ``AudioEngine/listenerVectorOrientation``: forward and up.
    case vectorOrientation
    /// ``AudioEngine/distanceAttenuationParameters``: model byte and three `Float`s.
    case distance
    /// ``AudioEngine/listenerVelocity``: a point.
    case velocity
    /// ``AudioEngine/dopplerFactor``: a `Float`.
    case dopplerFactor
    /// ``AudioEngine/speedOfSound``: a `Float`.
    case speedOfSound
    /// ``AudioEngine/audibilityThreshold``: a `Float`.
    case audibilityThreshold
    /// ``AudioEngine/audibilityMargin``: a `Float`.
    case audibilityMargin
    /// ``AudioEngine/outputType`` (or ``AudioEngine/isHRTFEnabled``): a byte.
    case outputType
    /// ``AudioEngine/selectHRTFDataSet(named:)``: an optional name.
    case hrtfDataSet
}
