import Backbeat

extension Drumpad {
    /// `session CATEGORY [mix|duck]`: the decision is printed by the session's update.
    func setSession(_ category: DrumpadCommand.SessionCategory, _ option: DrumpadCommand.SessionOption?) {
        let target: AudioSession.Category =
            switch category {
            case .ambient: .ambient
            case .soloAmbient: .soloAmbient
            case .playback: .playback
            }
        let options: AudioSession.CategoryOptions =
            switch option {
            case nil: []
            case .mix: .mixWithOthers
            case .duck: .duckOthers
            }
        do {
            try engine.session.setCategory(target, options: options)
        } catch {
            report("session: \(error)")
        }
    }

    /// `env EVENT`: posts what a phone's environment would send; the session's
    /// update says what the engine decided and why.
    func post(_ event: DrumpadCommand.EnvironmentEvent) {
        let session = engine.session
        let sessionEvent: SessionEvent =
            switch event {
            case .callBegan: .interruptionBegan
            case .callEnded(let resume): .interruptionEnded(shouldResume: resume)
            case .unplug:
                .routeChange(reason: .oldDeviceUnavailable, previousRoute: Self.headphones, currentRoute: Self.speakers)
            case .plug:
                .routeChange(
                    reason: .newDeviceAvailable, previousRoute: session.currentRoute, currentRoute: Self.headphones)
            case .silent(let on): .silentSwitch(on: on)
            case .otherAudio(true): .otherAudioStarted(name: Self.otherApp)
            case .otherAudio(false): .otherAudioStopped(name: Self.otherApp)
            }
        session.post(sessionEvent)
    }

    static let headphones = AudioRoute(name: "headphones")
    static let speakers = AudioRoute(name: "speakers")
    static let otherApp = "another app"
}
