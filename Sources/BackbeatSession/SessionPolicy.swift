import BackbeatSupport

/// The session rules as pure functions: the contract of the session table in DESIGN.md.
///
/// | category | option | mixes | silent switch mutes own sounds | activating asks others | game music while others play |
/// |---|---|---|---|---|---|
/// | ambient | — | yes | yes | nothing | held back |
/// | soloAmbient | — | no | yes | interrupt | plays, others stopped |
/// | playback | — | no | no | interrupt | plays, others stopped |
/// | playback | mixWithOthers | yes | no | nothing | plays, mixed |
/// | playback | duckOthers | yes, others lowered | no | duck | plays |
package enum SessionPolicy {
    /// Checks that `options` fit `category`.
    ///
    /// - Throws: ``BackbeatError/Code/invalidSessionOptions`` when an option is
    ///   set with a category other than ``AudioSession/Category/playback``.
    package static func validate(category: AudioSession.Category, options: AudioSession.CategoryOptions) throws {
        guard category != .playback, !options.isEmpty else { return }
        throw BackbeatError(
            .invalidSessionOptions, operation: "AudioSession.setCategory",
            reason: "\(options) is valid only with playback, not \(category)")
    }

    /// What the engine must do now.
    ///
    /// Total: options that do not fit the category (which ``validate(category:options:)``
    /// rejects) are ignored here.
    package static func decide(
        category: AudioSession.Category, options: AudioSession.CategoryOptions,
        environment: SessionEnvironment
    ) -> SessionDecision {
        let options = category == .playback ? options : []
        let mixes: Bool
        let request: OtherAudioRequest
        switch category {
        case .ambient:
            (mixes, request) = (true, .mix)
        case .soloAmbient:
            (mixes, request) = (false, .interrupt)
        case .playback:
            if options.contains(.duckOthers) {
                (mixes, request) = (true, .duck)
            } else if options.contains(.mixWithOthers) {
                (mixes, request) = (true, .mix)
            } else {
                (mixes, request) = (false, .interrupt)
            }
        }
        let silentMutes = category != .playback
        let muted = silentMutes && environment.isSilentSwitchOn
        // Only an ambient session gives way: the others stop the other audio or
        // deliberately mix with it.
        let heldBack = category == .ambient && environment.isOtherAudioPlaying
        return SessionDecision(
            mixesWithOthers: mixes,
            silentSwitchMutesOwnSounds: silentMutes,
            otherAudioRequest: request,
            effectsMuted: muted,
            effectsPaused: environment.isInterrupted,
            gameMusicHeldBack: heldBack,
            gameMusicMuted: muted || heldBack,
            musicInterrupted: environment.isInterrupted,
            musicPlayerIgnoresSilentSwitch: true,
            secondaryAudioShouldBeSilencedHint: environment.isOtherAudioPlaying)
    }
}
