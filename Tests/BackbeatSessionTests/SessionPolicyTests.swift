import Backbeat
import Testing

@testable import BackbeatSession

/// One row of the session table in DESIGN.md, written out by hand.
struct SessionTableRow: Sendable, CustomTestStringConvertible {
    var category: AudioSession.Category
    var options: AudioSession.CategoryOptions
    var mixes: Bool
    var silentSwitchMutesOwnSounds: Bool
    var request: OtherAudioRequest
    var gameMusicHeldBackWhileOthersPlay: Bool

    var testDescription: String { "\(category) \(options)" }

    static let all: [SessionTableRow] = [
        .init(
            category: .ambient, options: [], mixes: true, silentSwitchMutesOwnSounds: true, request: .mix,
            gameMusicHeldBackWhileOthersPlay: true),
        .init(
            category: .soloAmbient, options: [], mixes: false, silentSwitchMutesOwnSounds: true, request: .interrupt,
            gameMusicHeldBackWhileOthersPlay: false),
        .init(
            category: .playback, options: [], mixes: false, silentSwitchMutesOwnSounds: false, request: .interrupt,
            gameMusicHeldBackWhileOthersPlay: false),
        .init(
            category: .playback, options: .mixWithOthers, mixes: true, silentSwitchMutesOwnSounds: false, request: .mix,
            gameMusicHeldBackWhileOthersPlay: false),
        .init(
            category: .playback, options: .duckOthers, mixes: true, silentSwitchMutesOwnSounds: false, request: .duck,
            gameMusicHeldBackWhileOthersPlay: false),
        // duckOthers implies mixing; both together behave as duckOthers.
        .init(
            category: .playback, options: [.mixWithOthers, .duckOthers], mixes: true, silentSwitchMutesOwnSounds: false,
            request: .duck, gameMusicHeldBackWhileOthersPlay: false),
    ]
}

/// Other audio playing or not, crossed with the silent switch on or off.
struct SessionSurroundings: Sendable, CustomTestStringConvertible {
    var otherAudioPlaying: Bool
    var silentSwitchOn: Bool
    var testDescription: String {
        "other audio \(otherAudioPlaying ? "playing" : "quiet"), silent switch \(silentSwitchOn ? "on" : "off")"
    }
    var environment: SessionEnvironment {
        SessionEnvironment(isSilentSwitchOn: silentSwitchOn, otherAudio: otherAudioPlaying ? ["Music"] : [])
    }
    static let all: [SessionSurroundings] = [false, true].flatMap { other in
        [false, true].map { SessionSurroundings(otherAudioPlaying: other, silentSwitchOn: $0) }
    }
}

@Suite struct SessionPolicyTests {
    @Test(arguments: SessionTableRow.all, SessionSurroundings.all)
    func truthTable(row: SessionTableRow, around: SessionSurroundings) {
        let d = SessionPolicy.decide(category: row.category, options: row.options, environment: around.environment)
        #expect(d.mixesWithOthers == row.mixes)
        #expect(d.silentSwitchMutesOwnSounds == row.silentSwitchMutesOwnSounds)
        #expect(d.otherAudioRequest == row.request)

        let silenced = around.silentSwitchOn && row.silentSwitchMutesOwnSounds
        let heldBack = around.otherAudioPlaying && row.gameMusicHeldBackWhileOthersPlay
        #expect(
            d.effectsAudible == !silenced, "effects keep playing while other audio plays; only the switch mutes them")
        #expect(d.effectsMuted == silenced)
        #expect(!d.effectsPaused)
        #expect(d.gameMusicAudible == !(silenced || heldBack))
        #expect(d.gameMusicHeldBack == heldBack)
        #expect(
            d.musicPlayerAudible == !heldBack,
            "MusicPlayer ignores the silent switch in every category; it is only held back")
        #expect(d.musicPlayerIgnoresSilentSwitch)
        #expect(!d.musicInterrupted)
        #expect(d.secondaryAudioShouldBeSilencedHint == around.otherAudioPlaying)
    }

    @Test(arguments: SessionTableRow.all, SessionSurroundings.all)
    func anInterruptionSilencesEverythingInEveryCategory(row: SessionTableRow, around: SessionSurroundings) {
        var environment = around.environment
        environment.isInterrupted = true
        let d = SessionPolicy.decide(category: row.category, options: row.options, environment: environment)
        #expect(d.effectsPaused && !d.effectsAudible)
        #expect(d.musicInterrupted && !d.gameMusicAudible && !d.musicPlayerAudible)
        // Being interrupted does not change how the category treats others.
        #expect(d.otherAudioRequest == row.request)
    }

    @Test func spotChecksWrittenOut() {
        let quietSilent = SessionEnvironment(isSilentSwitchOn: true)
        let ambient = SessionPolicy.decide(category: .ambient, options: [], environment: quietSilent)
        #expect(!ambient.effectsAudible && !ambient.gameMusicAudible && ambient.musicPlayerAudible)
        let playback = SessionPolicy.decide(category: .playback, options: [], environment: quietSilent)
        #expect(playback.effectsAudible && playback.gameMusicAudible && playback.musicPlayerAudible)

        let spotify = SessionEnvironment(otherAudio: ["Spotify"])
        let ambientWithOthers = SessionPolicy.decide(category: .ambient, options: [], environment: spotify)
        #expect(ambientWithOthers.effectsAudible && !ambientWithOthers.gameMusicAudible)
        let solo = SessionPolicy.decide(category: .soloAmbient, options: [], environment: spotify)
        #expect(solo.gameMusicAudible && solo.otherAudioRequest == .interrupt)
    }

    @Test func theDefaultIsSoloAmbientAndQuiet() {
        let session = AudioSession(clock: { .zero })
        #expect(session.category == .soloAmbient && session.options.isEmpty && !session.isActive)
        #expect(
            session.decision
                == SessionPolicy.decide(category: .soloAmbient, options: [], environment: SessionEnvironment()))
        #expect(!session.isOtherAudioPlaying && !session.secondaryAudioShouldBeSilencedHint)
        #expect(session.currentRoute == .defaultOutput)
    }

    static let invalidCombinations: [(AudioSession.Category, AudioSession.CategoryOptions)] =
        [AudioSession.Category.ambient, .soloAmbient].flatMap { c in
            AudioSession.CategoryOptions.allCombinations.filter { !$0.isEmpty }.map { (c, $0) }
        }

    @Test(arguments: invalidCombinations)
    func optionsOutsidePlaybackAreTypedErrors(category: AudioSession.Category, options: AudioSession.CategoryOptions)
        throws
    {
        #expect(Self.invalidCombinations.count == 6)
        let session = AudioSession(clock: { .zero })
        try session.setCategory(.playback, options: .mixWithOthers)
        let error = #expect(throws: BackbeatError.self) { try session.setCategory(category, options: options) }
        #expect(error?.code == .invalidSessionOptions)
        #expect(error?.reason?.contains("\(category)") == true)
        #expect(
            session.category == .playback && session.options == .mixWithOthers,
            "a rejected change leaves the session as it was")
        // The pure policy is total: it ignores options that do not fit.
        #expect(
            SessionPolicy.decide(category: category, options: options, environment: SessionEnvironment())
                == SessionPolicy.decide(category: category, options: [], environment: SessionEnvironment()))
    }

    @Test(arguments: AudioSession.CategoryOptions.allCombinations)
    func everyOptionFitsPlayback(options: AudioSession.CategoryOptions) throws {
        try SessionPolicy.validate(category: .playback, options: options)
    }

    @Test func transitionsArePure() {
        let start = SessionEnvironment()
        let began = SessionPolicy.transition(.interruptionBegan, from: start)
        #expect(began.environment.isInterrupted && began.playerActions == [.markMusicInterrupted])
        #expect(!start.isInterrupted)
        #expect(SessionPolicy.transition(.interruptionBegan, from: start) == began)
        let unplugged = SessionPolicy.transition(
            .routeChange(
                reason: .oldDeviceUnavailable, previousRoute: AudioRoute(name: "headphones"),
                currentRoute: AudioRoute(name: "speakers")), from: start)
        #expect(unplugged.playerActions == [.pauseMusic])
        #expect(
            unplugged.environment.previousRoute?.name == "headphones"
                && unplugged.environment.currentRoute.name == "speakers")
        for reason in [RouteChangeReason.newDeviceAvailable, .categoryChange] {
            let change = SessionPolicy.transition(
                .routeChange(reason: reason, previousRoute: .defaultOutput, currentRoute: AudioRoute(name: "usb")),
                from: start)
            #expect(change.playerActions.isEmpty && change.ignoredBecause == nil)
        }
        #expect(
            SessionPolicy.transition(.interruptionEnded(shouldResume: true), from: start).ignoredBecause
                == "interruption ended without a began")
        #expect(SessionPolicy.transition(.otherAudioStopped(name: "x"), from: start).ignoredBecause != nil)
        #expect(SessionPolicy.transition(.silentSwitch(on: false), from: start).ignoredBecause != nil)
    }
}
