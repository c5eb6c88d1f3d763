/// One thing the session applied to the engine or asked of other audio.
package enum SessionAction: Sendable, Hashable, CustomStringConvertible {
    /// Effects muted or unmuted (silent switch), time running.
    case setEffectsMuted(Bool)
    /// Effects paused or resumed where they were (interruption).
    case setEffectsPaused(Bool)
    /// The game's own music muted or unmuted (silent switch, held back), time running.
    case setGameMusicMuted(Bool)
    /// `MusicPlayer` held back or brought back (other audio in an ambient session), time running.
    case setMusicPlayerHeldBack(Bool)
    /// Playing music players went to `interrupted`.
    case markMusicInterrupted
    /// Playing music players paused (the output went away).
    case pauseMusic
    /// The music players that were playing before the interruption resumed where they were.
    case resumeMusic
    /// The interrupted music players became paused and stay so.
    case keepMusicPaused
    /// Other audio was asked to stop.
    case interruptOtherAudio
    /// Other audio was asked to lower its level.
    case duckOtherAudio
    /// Other audio was told it may return to its level.
    case restoreOtherAudio
    /// The music bus was ducked for a while.
    case duckMusic(MusicDuck)

    package var description: String {
        switch self {
        case .setEffectsMuted(let on): on ? "effects muted" : "effects unmuted"
        case .setEffectsPaused(let on): on ? "effects paused" : "effects resumed"
        case .setGameMusicMuted(let on): on ? "game music muted" : "game music unmuted"
        case .setMusicPlayerHeldBack(let on): on ? "music player held back" : "music player back"
        case .markMusicInterrupted: "music interrupted"
        case .pauseMusic: "music paused"
        case .resumeMusic: "music resumed"
        case .keepMusicPaused: "music stays paused"
        case .interruptOtherAudio: "other audio asked to stop"
        case .duckOtherAudio: "other audio asked to duck"
        case .restoreOtherAudio: "other audio restored"
        case .duckMusic(let duck): "music ducked by \(duck.decibels) dB"
        }
    }
}
