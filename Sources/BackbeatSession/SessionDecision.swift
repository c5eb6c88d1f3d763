/// What the engine must do for a category, its options and the environment.
///
/// `SessionPolicy.decide(category:options:environment:)` makes it; the engine
/// applies it and nothing else decides. "Muted" keeps time running, so unmuting
/// continues mid-sound; "paused" stops time where it was.
package struct SessionDecision: Sendable, Hashable {
    /// Whether the game's audio plays mixed with other audio (the table's third column).
    package let mixesWithOthers: Bool
    /// Whether the silent switch mutes the game's own sounds in this category.
    package let silentSwitchMutesOwnSounds: Bool
    /// What activating the session asks of other audio.
    package let otherAudioRequest: OtherAudioRequest
    /// Whether effects are muted (silent switch), time running.
    package let effectsMuted: Bool
    /// Whether effects are paused (interruption).
    package let effectsPaused: Bool
    /// Whether music (the queue player, the ambient soundtrack, and `MusicPlayer`)
    /// is held back because other audio plays in an ambient session.
    package let gameMusicHeldBack: Bool
    /// Whether the game's own music is muted, time running: by the silent switch or held back.
    package let gameMusicMuted: Bool
    /// Whether music players must be in the `interrupted` state.
    package let musicInterrupted: Bool
    /// Whether `MusicPlayer` ignores the silent switch. It does, in every category,
    /// as the iPod did: the player's music is the user's choice, not the game's sound.
    package let musicPlayerIgnoresSilentSwitch: Bool
    /// Whether other audio is playing that the game's secondary audio should give way to.
    package let secondaryAudioShouldBeSilencedHint: Bool

    /// Whether effects can be heard.
    package var effectsAudible: Bool { !effectsMuted && !effectsPaused }
    /// Whether the queue player (the game's own music) can be heard.
    package var gameMusicAudible: Bool { !gameMusicMuted && !musicInterrupted }
    /// Whether `MusicPlayer` can be heard: the silent switch does not matter, being held back does.
    package var musicPlayerAudible: Bool { !musicInterrupted && !gameMusicHeldBack }
}
