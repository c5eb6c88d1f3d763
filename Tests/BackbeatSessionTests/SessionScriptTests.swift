import Backbeat
import BackbeatTesting
import Testing

@Suite struct SessionScriptTests {
    @Test func advancePostsDueEventsInOrderStampedWithTheirTimes() {
        let (session, recorder, log, _) = makeSession()
        let player = SessionPlayerID.next()
        recorder.setPlayer(player, .playing)
        let second = MediaTime(value: 1, timescale: 1)
        let script = ScriptedEnvironment(
            session: session,
            events: [
                .init(at: second * 5, .interruptionEnded(shouldResume: true)),
                .init(at: second * 2, .interruptionBegan),
                .init(at: second * 2, .silentSwitch(on: true)),
            ])
        #expect(
            script.entries.map(\.event) == [
                .interruptionBegan, .silentSwitch(on: true), .interruptionEnded(shouldResume: true),
            ])
        script.advance(to: second)
        #expect(log.all.isEmpty)
        script.advance(to: second * 3)
        #expect(recorder.player(player) == .interrupted)
        #expect(log.all.map(\.time) == [second * 2, second * 2])
        #expect(log.all.allSatisfy { if case .event(_, .script) = $0.cause { true } else { false } })
        script.advance(to: second)  // backwards: nothing
        #expect(log.all.count == 2 && !script.isFinished)
        script.advance(to: second * 5)
        #expect(recorder.player(player) == .playing && script.isFinished)
        #expect(log.last?.time == second * 5)
    }

    @Test func anOfflineEngineDrivesTheScriptOnItsUpdateSteps() throws {
        try withOfflineEngine(sampleRate: 48_000) { engine in
            let recorder = SessionRecorder()
            let session = AudioSession(clock: { [weak engine] in engine?.currentTime ?? .zero }, target: recorder)
            let log = UpdateLog()
            session.observe { log.append($0) }
            // 100 ms is 4,800 frames: an update boundary (updateInterval divides it).
            let at = MediaTime(frames: 4_800, sampleRate: 48_000)
            #expect(4_800 % engine.updateInterval == 0)
            let script = ScriptedEnvironment(session: session, events: [.init(at: at, .silentSwitch(on: true))])
            script.attach(to: engine)
            _ = try engine.render(frames: 4_800)
            #expect(log.all.isEmpty, "the step at 4,800 runs when rendering reaches it")
            _ = try engine.render(frames: 1)
            #expect(log.all.count == 1)
            #expect(log.last?.time == at)
            #expect(session.decision.effectsMuted)
            #expect(recorder.calls.suffix(2) == [.effectsMuted(true), .gameMusicMuted(true)])
            #expect(script.isFinished)
        }
    }

    @Test func sessionTimeIsEngineTime() throws {
        try withOfflineEngine(sampleRate: 48_000) { engine in
            let session = AudioSession(clock: { [weak engine] in engine?.currentTime ?? .zero })
            _ = try engine.render(frames: 24_000)
            let duck = try session.requestDuck(music: MediaTime(value: 1, timescale: 1), by: 6)
            #expect(duck.start == MediaTime(value: 1, timescale: 2))
        }
    }
}
