import Backbeat
import BackbeatSupport
import Testing

// The effects engine (issue 4) and the music players (issue 5) do not exist on
// this branch yet, so the session is tested against this recorder of the
// engine-facing calls. It keeps enough player state (playing, paused,
// interrupted) to check that the session resumes exactly what was playing.

/// A music player's state, as far as the session can change it.
enum FakePlayerState: Sendable, Equatable { case playing, paused, interrupted, stopped }

/// Records every call the session makes to the engine side and to other audio.
final class SessionRecorder: SessionTarget, OtherAudioController {
    enum Call: Sendable, Equatable {
        case effectsMuted(Bool)
        case effectsPaused(Bool)
        case gameMusicMuted(Bool)
        case musicPlayerHeldBack(Bool)
        case markInterrupted, pauseMusic
        case resumeMusic(Set<SessionPlayerID>)
        case keepMusicPaused(Set<SessionPlayerID>)
        case duckMusic(MusicDuck)
        case interruptOthers, duckOthers, restoreOthers
    }
    struct State {
        var calls: [Call] = []
        var players: [SessionPlayerID: FakePlayerState] = [:]
        var effectsMuted = false, effectsPaused = false, gameMusicMuted = false, musicPlayerHeldBack = false
    }
    let state = LockedValueBox(State())

    var calls: [Call] { state.withLockedValue { $0.calls } }
    func clear() { state.withLockedValue { $0.calls = [] } }
    func player(_ id: SessionPlayerID) -> FakePlayerState? { state.withLockedValue { $0.players[id] } }
    func setPlayer(_ id: SessionPlayerID, _ value: FakePlayerState) { state.withLockedValue { $0.players[id] = value } }

    func setEffectsMuted(_ muted: Bool) {
        state.withLockedValue {
            $0.calls.append(.effectsMuted(muted))
            $0.effectsMuted = muted
        }
    }
    func setEffectsPaused(_ paused: Bool) {
        state.withLockedValue {
            $0.calls.append(.effectsPaused(paused))
            $0.effectsPaused = paused
        }
    }
    func setGameMusicMuted(_ muted: Bool) {
        state.withLockedValue {
            $0.calls.append(.gameMusicMuted(muted))
            $0.gameMusicMuted = muted
        }
    }
    func setMusicPlayerHeldBack(_ heldBack: Bool) {
        state.withLockedValue {
            $0.calls.append(.musicPlayerHeldBack(heldBack))
            $0.musicPlayerHeldBack = heldBack
        }
    }
    func markInterrupted(reason: String) -> Set<SessionPlayerID> {
        state.withLockedValue { s in
            s.calls.append(.markInterrupted)
            let playing = Set(s.players.filter { $0.value == .playing }.keys)
            for id in playing { s.players[id] = .interrupted }
            return playing
        }
    }
    func pauseMusic(reason: String) {
        state.withLockedValue { s in
            s.calls.append(.pauseMusic)
            for (id, value) in s.players where value == .playing { s.players[id] = .paused }
        }
    }
    func resumeMusic(_ players: Set<SessionPlayerID>, reason: String) {
        state.withLockedValue { s in
            s.calls.append(.resumeMusic(players))
            for id in players where s.players[id] == .interrupted { s.players[id] = .playing }
        }
    }
    func keepMusicPaused(_ players: Set<SessionPlayerID>, reason: String) {
        state.withLockedValue { s in
            s.calls.append(.keepMusicPaused(players))
            for id in players where s.players[id] == .interrupted { s.players[id] = .paused }
        }
    }
    func duckMusic(_ duck: MusicDuck) { state.withLockedValue { $0.calls.append(.duckMusic(duck)) } }
    func interruptOtherAudio() { state.withLockedValue { $0.calls.append(.interruptOthers) } }
    func duckOtherAudio() { state.withLockedValue { $0.calls.append(.duckOthers) } }
    func restoreOtherAudio() { state.withLockedValue { $0.calls.append(.restoreOthers) } }
}

/// An engine clock the test moves by hand.
final class ManualClock: Sendable {
    private let now = LockedValueBox(MediaTime.zero)
    var time: MediaTime {
        get { now.withLockedValue { $0 } }
        set { now.withLockedValue { $0 = newValue } }
    }
    var read: @Sendable () -> MediaTime { { [self] in time } }
}

/// Collects every update a session delivers through its callback.
final class UpdateLog: Sendable {
    private let updates = LockedValueBox<[SessionUpdate]>([])
    var all: [SessionUpdate] { updates.withLockedValue { $0 } }
    var last: SessionUpdate? { all.last }
    func append(_ update: SessionUpdate) { updates.withLockedValue { $0.append(update) } }
}

/// A session on a manual clock, wired to a recorder and an update log.
func makeSession() -> (AudioSession, SessionRecorder, UpdateLog, ManualClock) {
    let clock = ManualClock()
    let recorder = SessionRecorder()
    let session = AudioSession(clock: clock.read, target: recorder, otherAudio: recorder)
    let log = UpdateLog()
    session.observe { log.append($0) }
    recorder.clear()
    return (session, recorder, log, clock)
}

@Suite struct SessionRecorderTests {
    @Test func attachingBringsTheTargetUpToDate() throws {
        let session = AudioSession(clock: { .zero })
        try session.setCategory(.ambient)
        session.post(.silentSwitch(on: true))
        let recorder = SessionRecorder()
        session.attach(target: recorder)
        #expect(
            recorder.calls == [
                .effectsMuted(true), .effectsPaused(false), .gameMusicMuted(true), .musicPlayerHeldBack(false),
            ])
    }

    @Test func attachingWhileOtherAudioPlaysHoldsTheMusicPlayerBack() throws {
        let session = AudioSession(clock: { .zero })
        try session.setCategory(.ambient)
        session.post(.otherAudioStarted(name: "radio"))
        let recorder = SessionRecorder()
        session.attach(target: recorder)
        #expect(
            recorder.calls == [
                .effectsMuted(false), .effectsPaused(false), .gameMusicMuted(true), .musicPlayerHeldBack(true),
            ])
    }

    @Test func playerIdentifiersAreUnique() {
        let ids = (0..<100).map { _ in SessionPlayerID.next() }
        #expect(Set(ids).count == 100)
    }
}
