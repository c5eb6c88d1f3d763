import Backbeat
import Testing

private let headphones = AudioRoute(name: "headphones")
private let speakers = AudioRoute(name: "speakers")

@Suite struct SessionEventTests {
    /// A queue player and a music player, both playing.
    private func twoPlayingPlayers(_ recorder: SessionRecorder) -> (SessionPlayerID, SessionPlayerID) {
        let queue = SessionPlayerID.next()
        let music = SessionPlayerID.next()
        recorder.setPlayer(queue, .playing)
        recorder.setPlayer(music, .playing)
        return (queue, music)
    }

    // MARK: Interruptions

    @Test func interruptionEndedWithShouldResumeResumesWhatWasPlaying() {
        let (session, recorder, log, _) = makeSession()
        let (queue, music) = twoPlayingPlayers(recorder)
        session.post(.interruptionBegan)
        #expect(recorder.calls == [.markInterrupted, .effectsPaused(true)])
        #expect(recorder.player(queue) == .interrupted && recorder.player(music) == .interrupted)
        #expect(log.last?.reason == "music interrupted, effects paused: interruption began")
        #expect(session.environment.isInterrupted && !session.decision.effectsAudible)

        recorder.clear()
        session.post(.interruptionEnded(shouldResume: true))
        #expect(recorder.calls == [.effectsPaused(false), .resumeMusic([queue, music])])
        #expect(recorder.player(queue) == .playing && recorder.player(music) == .playing)
        #expect(log.last?.reason == "effects resumed, music resumed: interruption ended, should resume")
    }

    @Test func resumeBringsBackExactlyThePlayersThatWerePlaying() {
        let (session, recorder, _, _) = makeSession()
        let (queue, music) = twoPlayingPlayers(recorder)
        recorder.setPlayer(music, .paused)  // the user paused it before the call
        session.post(.interruptionBegan)
        session.post(.interruptionEnded(shouldResume: true))
        #expect(recorder.player(queue) == .playing)
        #expect(recorder.player(music) == .paused)
        #expect(recorder.calls.contains(.resumeMusic([queue])))
    }

    @Test func interruptionEndedWithoutShouldResumeLeavesPlayersPaused() {
        let (session, recorder, log, _) = makeSession()
        let (queue, music) = twoPlayingPlayers(recorder)
        session.post(.interruptionBegan)
        recorder.clear()
        session.post(.interruptionEnded(shouldResume: false))
        #expect(recorder.calls == [.effectsPaused(false), .keepMusicPaused([queue, music])])
        #expect(recorder.player(queue) == .paused && recorder.player(music) == .paused)
        #expect(log.last?.reason == "effects resumed, music stays paused: interruption ended without shouldResume")
        #expect(!session.environment.isInterrupted)
    }

    @Test func endedWithoutBeganIsIgnoredWithItsReason() {
        let (session, recorder, log, _) = makeSession()
        let (queue, _) = twoPlayingPlayers(recorder)
        recorder.setPlayer(queue, .paused)
        session.post(.interruptionEnded(shouldResume: true))
        #expect(recorder.calls.isEmpty)
        #expect(recorder.player(queue) == .paused, "a stray end must not start music the user paused")
        #expect(log.last?.ignoredBecause == "interruption ended without a began")
        #expect(log.last?.reason == "ignored: interruption ended without a began")
        #expect(log.last?.actions.isEmpty == true)
    }

    @Test func aSecondBeganIsIgnoredAndTheFirstPlayersStillResume() {
        let (session, recorder, log, _) = makeSession()
        let (queue, music) = twoPlayingPlayers(recorder)
        session.post(.interruptionBegan)
        session.post(.interruptionBegan)
        #expect(log.last?.ignoredBecause != nil)
        session.post(.interruptionEnded(shouldResume: true))
        #expect(recorder.player(queue) == .playing && recorder.player(music) == .playing)
    }

    @Test func beganWithoutEndedIsRecoveredBySetActive() {
        let (session, recorder, log, _) = makeSession()
        let (queue, music) = twoPlayingPlayers(recorder)
        session.post(.interruptionBegan)
        recorder.clear()
        session.setActive(true)
        #expect(!session.environment.isInterrupted)
        #expect(session.decision.effectsAudible)
        #expect(recorder.calls == [.effectsPaused(false), .keepMusicPaused([queue, music]), .interruptOthers])
        #expect(recorder.player(queue) == .paused && recorder.player(music) == .paused)
        #expect(log.last?.reason.hasPrefix("effects resumed, music stays paused") == true)
        // The late end finds nothing to end.
        session.post(.interruptionEnded(shouldResume: true))
        #expect(log.last?.ignoredBecause == "interruption ended without a began")
        #expect(recorder.player(queue) == .paused)
    }

    @Test func beganWithoutEndedIsRecoveredByAPlayRequest() {
        let (session, recorder, log, _) = makeSession()
        let (queue, music) = twoPlayingPlayers(recorder)
        session.post(.interruptionBegan)
        recorder.clear()
        session.playRequested(by: queue)
        #expect(!session.environment.isInterrupted)
        #expect(recorder.calls == [.effectsPaused(false), .keepMusicPaused([music])])
        #expect(recorder.player(music) == .paused)
        #expect(log.last?.cause == .playRequest)
        // With no interruption under way a play request changes nothing.
        let count = log.all.count
        session.playRequested(by: music)
        #expect(log.all.count == count)
    }

    // MARK: Routes

    @Test func headphonesUnpluggedPausesMusicAndEffectsGoOn() {
        let (session, recorder, log, _) = makeSession()
        let (queue, music) = twoPlayingPlayers(recorder)
        session.post(.routeChange(reason: .oldDeviceUnavailable, previousRoute: headphones, currentRoute: speakers))
        #expect(recorder.calls == [.pauseMusic])
        #expect(recorder.player(queue) == .paused && recorder.player(music) == .paused)
        #expect(session.decision.effectsAudible)
        #expect(log.last?.reason == "music paused: headphones unplugged")
        #expect(session.currentRoute == speakers && session.environment.previousRoute == headphones)
    }

    @Test(arguments: [RouteChangeReason.newDeviceAvailable, .categoryChange])
    func otherRouteChangesPauseNothing(reason: RouteChangeReason) {
        let (session, recorder, log, _) = makeSession()
        let (queue, _) = twoPlayingPlayers(recorder)
        session.post(.routeChange(reason: reason, previousRoute: speakers, currentRoute: headphones))
        #expect(recorder.calls.isEmpty)
        #expect(recorder.player(queue) == .playing)
        #expect(log.last?.actions.isEmpty == true && log.last?.ignoredBecause == nil)
        #expect(session.currentRoute == headphones)
    }

    @Test func outputLostDuringAnInterruptionKeepsMusicPausedAfterIt() {
        let (session, recorder, _, _) = makeSession()
        let (queue, music) = twoPlayingPlayers(recorder)
        session.post(.interruptionBegan)
        session.post(.routeChange(reason: .oldDeviceUnavailable, previousRoute: headphones, currentRoute: speakers))
        #expect(recorder.player(queue) == .paused && recorder.player(music) == .paused)
        session.post(.interruptionEnded(shouldResume: true))
        #expect(recorder.player(queue) == .paused && recorder.player(music) == .paused)
        #expect(session.decision.effectsAudible)
    }

    @Test func theSystemHookReportsDeviceLossAsOldDeviceUnavailable() {
        let (session, recorder, log, _) = makeSession()
        _ = twoPlayingPlayers(recorder)
        session.systemLostDevice(previousRoute: AudioRoute(name: "USB headset"), currentRoute: .defaultOutput)
        #expect(recorder.calls == [.pauseMusic])
        guard case .event(.routeChange(.oldDeviceUnavailable, _, _), source: .system)? = log.last?.cause else {
            Issue.record("expected a system route change, got \(String(describing: log.last?.cause))")
            return
        }
        #expect(log.last?.reason == "music paused: USB headset unplugged")
    }

    // MARK: Silent switch

    @Test(arguments: [AudioSession.Category.ambient, .soloAmbient])
    func silentSwitchMutesOwnSoundsWithoutStoppingTime(category: AudioSession.Category) throws {
        let (session, recorder, log, _) = makeSession()
        try session.setCategory(category)
        let (queue, music) = twoPlayingPlayers(recorder)
        recorder.clear()
        session.post(.silentSwitch(on: true))
        #expect(recorder.calls == [.effectsMuted(true), .gameMusicMuted(true)], "muted, never paused")
        #expect(recorder.player(queue) == .playing && recorder.player(music) == .playing)
        #expect(session.decision.musicPlayerAudible)
        #expect(log.last?.reason == "effects muted, game music muted: silent switch on")
        recorder.clear()
        session.post(.silentSwitch(on: true))
        #expect(log.last?.ignoredBecause == "silent switch already on")
        session.post(.silentSwitch(on: false))
        #expect(recorder.calls == [.effectsMuted(false), .gameMusicMuted(false)])
    }

    @Test(arguments: AudioSession.CategoryOptions.allCombinations)
    func silentSwitchMutesNothingInPlayback(options: AudioSession.CategoryOptions) throws {
        let (session, recorder, log, _) = makeSession()
        try session.setCategory(.playback, options: options)
        recorder.clear()
        session.post(.silentSwitch(on: true))
        #expect(recorder.calls.isEmpty)
        #expect(log.last?.reason == "no change: silent switch on")
    }

    @Test func changingCategoryWhileSilentReappliesTheSwitch() throws {
        let (session, recorder, log, _) = makeSession()
        try session.setCategory(.playback)
        session.post(.silentSwitch(on: true))
        recorder.clear()
        try session.setCategory(.ambient)
        #expect(recorder.calls == [.effectsMuted(true), .gameMusicMuted(true)])
        #expect(log.last?.reason == "effects muted, game music muted: category changed to ambient")
    }

    // MARK: Other audio

    @Test func ambientHoldsBackItsMusicWhileOtherAudioPlaysAndBringsItBack() throws {
        let (session, recorder, log, _) = makeSession()
        try session.setCategory(.ambient)
        session.setActive(true)
        recorder.clear()
        session.post(.otherAudioStarted(name: "Rhythmbox"))
        #expect(recorder.calls == [.gameMusicMuted(true), .musicPlayerHeldBack(true)], "effects keep playing")
        #expect(session.isOtherAudioPlaying && session.secondaryAudioShouldBeSilencedHint)
        #expect(log.last?.reason == "game music muted, music player held back: Rhythmbox started playing")
        session.post(.otherAudioStarted(name: "Firefox"))
        session.post(.otherAudioStopped(name: "Rhythmbox"))
        #expect(session.decision.gameMusicHeldBack, "Firefox still plays")
        recorder.clear()
        session.post(.otherAudioStopped(name: "Firefox"))
        #expect(recorder.calls == [.gameMusicMuted(false), .musicPlayerHeldBack(false)])
        #expect(!session.isOtherAudioPlaying && !session.secondaryAudioShouldBeSilencedHint)
        session.post(.otherAudioStopped(name: "Firefox"))
        #expect(log.last?.ignoredBecause == "Firefox was not playing")
    }

    @Test func activationAsksOtherAudioWhatTheCategorySays() throws {
        let cases: [(AudioSession.Category, AudioSession.CategoryOptions, [SessionRecorder.Call])] = [
            (.ambient, [], []),
            (.soloAmbient, [], [.interruptOthers]),
            (.playback, [], [.interruptOthers]),
            (.playback, .mixWithOthers, []),
            (.playback, .duckOthers, [.duckOthers]),
        ]
        for (category, options, expected) in cases {
            let (session, recorder, _, _) = makeSession()
            try session.setCategory(category, options: options)
            recorder.clear()
            session.setActive(true)
            #expect(recorder.calls == expected, "\(category) \(options)")
            recorder.clear()
            session.setActive(false)
            // Deactivating gives back what activating took, ducked or paused.
            #expect(recorder.calls == (expected.isEmpty ? [] : [.restoreOthers]), "\(category) \(options)")
        }
    }

    @Test func otherAudioStartingWhileActiveIsReevaluated() throws {
        let (session, recorder, _, _) = makeSession()
        session.setActive(true)
        recorder.clear()
        session.post(.otherAudioStarted(name: "mpv"))
        #expect(recorder.calls == [.interruptOthers], "soloAmbient: other audio is stopped, its music plays")
        #expect(session.decision.gameMusicAudible)

        try session.setCategory(.playback, options: .duckOthers)
        #expect(recorder.calls.last == .duckOthers)
        recorder.clear()
        session.post(.otherAudioStarted(name: "vlc"))
        #expect(recorder.calls == [.duckOthers], "a newcomer is ducked too")
        recorder.clear()
        try session.setCategory(.playback, options: .mixWithOthers)
        #expect(recorder.calls == [.restoreOthers])
        recorder.clear()
        try session.setCategory(.soloAmbient)
        #expect(recorder.calls == [.interruptOthers], "changing category while active applies at once")
    }

    @Test func inactiveSessionsAskNothingOfOtherAudio() {
        let (session, recorder, _, _) = makeSession()
        session.post(.otherAudioStarted(name: "mpv"))
        #expect(recorder.calls.isEmpty)
    }

    // MARK: Ducking

    @Test func duckLowersTheMusicBusOnEngineTime() throws {
        let (session, recorder, log, clock) = makeSession()
        clock.time = MediaTime(frames: 96_000, sampleRate: 48_000)
        let duck = try session.requestDuck(
            music: MediaTime(seconds: 2.5), by: 12,
            attack: MediaTime(value: 1, timescale: 10), release: MediaTime(value: 1, timescale: 2))
        #expect(duck.start == MediaTime(value: 2, timescale: 1))
        #expect(duck.loweredAt == MediaTime(value: 21, timescale: 10))
        #expect(duck.releaseBegins == MediaTime(value: 46, timescale: 10))
        #expect(duck.end == MediaTime(value: 51, timescale: 10))
        #expect(abs(duck.gain - 0.251189) < 1e-5)
        #expect(recorder.calls == [.duckMusic(duck)])
        #expect(log.last?.reason == "music ducked by 12.0 dB: duck requested")
        #expect(log.last?.time == clock.time)
    }

    @Test func duckRejectsBadArguments() {
        let (session, recorder, _, _) = makeSession()
        let second = MediaTime(value: 1, timescale: 1)
        let bad: [() throws -> Void] = [
            { try session.duck(music: second, by: 0) },
            { try session.duck(music: second, by: -6) },
            { try session.duck(music: second, by: .nan) },
            { try session.duck(music: .zero, by: 6) },
            { try session.duck(music: second, by: 6, attack: -second) },
            { try session.duck(music: second, by: 6, release: -second) },
        ]
        for call in bad {
            let error = #expect(throws: BackbeatError.self) { try call() }
            #expect(error?.code == .invalidArgument)
        }
        #expect(recorder.calls.isEmpty)
    }

    // MARK: Events up

    @Test func updatesStreamDeliversEveryDecisionInOrder() async throws {
        let (session, _, _, _) = makeSession()
        let stream = session.events()
        session.post(.silentSwitch(on: true))
        session.post(.routeChange(reason: .oldDeviceUnavailable, previousRoute: headphones, currentRoute: speakers))
        session.post(.interruptionEnded(shouldResume: false))
        var reasons: [String] = []
        for await update in stream {
            reasons.append(update.reason)
            if reasons.count == 3 { break }
        }
        #expect(
            reasons == [
                "effects muted, game music muted: silent switch on",
                "music paused: headphones unplugged",
                "ignored: interruption ended without a began",
            ])
    }

    @Test func aCallbackMayPostAndItsEventFollows() {
        let (session, recorder, log, _) = makeSession()
        // makeSession's observer logs; this one only posts (observers add up, in order).
        session.observe { [weak session] update in
            if case .event(.silentSwitch(on: true), _) = update.cause { session?.post(.silentSwitch(on: false)) }
        }
        session.post(.silentSwitch(on: true))
        #expect(
            log.all.map(\.reason) == [
                "effects muted, game music muted: silent switch on",
                "effects unmuted, game music unmuted: silent switch off",
            ])
        #expect(
            recorder.calls == [
                .effectsMuted(true), .gameMusicMuted(true), .effectsMuted(false), .gameMusicMuted(false),
            ])
    }

    @Test func updatesCarryTheEngineTimeAndSource() {
        let (session, _, log, clock) = makeSession()
        clock.time = MediaTime(value: 7, timescale: 2)
        session.post(.silentSwitch(on: true))
        #expect(log.last?.time == MediaTime(value: 7, timescale: 2))
        #expect(log.last?.cause == .event(.silentSwitch(on: true), source: .hostGame))
    }
}
