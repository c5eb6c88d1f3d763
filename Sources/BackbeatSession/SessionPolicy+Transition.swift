extension SessionPolicy {
    /// What one event does to the environment and to the music players.
    struct Transition: Sendable, Equatable {
        /// The environment after the event.
        var environment: SessionEnvironment
        /// What the music players must do because of this event (edges, not levels).
        var playerActions: [SessionAction]
        /// Why the event changes nothing, when it is ignored.
        var ignoredBecause: String?
    }

    /// Applies `event` to `environment`: pure, so the state machine is a fold over it.
    ///
    /// Levels (mutes, pauses, holding back) follow from ``decide(category:options:environment:)``
    /// on the new environment; this adds only what happens once, on the edge.
    static func transition(_ event: SessionEvent, from environment: SessionEnvironment) -> Transition {
        var next = environment
        func ignored(_ why: String) -> Transition {
            Transition(environment: environment, playerActions: [], ignoredBecause: why)
        }
        switch event {
        case .interruptionBegan:
            guard !environment.isInterrupted else { return ignored("an interruption is already under way") }
            next.isInterrupted = true
            return Transition(environment: next, playerActions: [.markMusicInterrupted])
        case .interruptionEnded(let shouldResume):
            // Without a began nothing was interrupted: resuming would start music
            // the user or the game had stopped.
            guard environment.isInterrupted else { return ignored("interruption ended without a began") }
            next.isInterrupted = false
            return Transition(environment: next, playerActions: [shouldResume ? .resumeMusic : .keepMusicPaused])
        case .routeChange(let reason, let previous, let current):
            next.previousRoute = previous
            next.currentRoute = current
            return Transition(environment: next, playerActions: reason == .oldDeviceUnavailable ? [.pauseMusic] : [])
        case .silentSwitch(let on):
            guard environment.isSilentSwitchOn != on else {
                return ignored("silent switch already \(on ? "on" : "off")")
            }
            next.isSilentSwitchOn = on
            return Transition(environment: next, playerActions: [])
        case .otherAudioStarted(let name):
            guard !environment.otherAudio.contains(name) else { return ignored("\(name) is already playing") }
            next.otherAudio.append(name)
            return Transition(environment: next, playerActions: [])
        case .otherAudioStopped(let name):
            guard environment.otherAudio.contains(name) else { return ignored("\(name) was not playing") }
            next.otherAudio.removeAll { $0 == name }
            return Transition(environment: next, playerActions: [])
        }
    }
}

extension SessionPolicy.Transition {
    init(environment: SessionEnvironment, playerActions: [SessionAction]) {
        self.init(environment: environment, playerActions: playerActions, ignoredBecause: nil)
    }
}
