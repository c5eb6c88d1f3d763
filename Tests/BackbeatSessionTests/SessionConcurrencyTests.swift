import Backbeat
import Dispatch
import Testing

@testable import BackbeatSession

@Suite struct SessionConcurrencyTests {
    /// Events from many threads at once: every one is applied exactly once, in
    /// one order, and the engine side ends where the decision says.
    @Test func eventsFromManyThreadsAreAppliedOneAtATime() throws {
        let (session, recorder, log, _) = makeSession()
        try session.setCategory(.ambient)
        session.setActive(true)
        let player = SessionPlayerID.next()
        recorder.setPlayer(player, .playing)
        recorder.clear()
        let before = log.all.count
        let threads = 8
        let rounds = 100
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for round in 0..<rounds {
                switch (thread + round) % 4 {
                case 0: session.post(.silentSwitch(on: round % 2 == 0))
                case 1: session.post(.otherAudioStarted(name: "player \(thread)"))
                case 2: session.post(.otherAudioStopped(name: "player \(thread)"))
                default: session.post(round % 8 < 4 ? .interruptionBegan : .interruptionEnded(shouldResume: true))
                }
                _ = session.decision
            }
        }
        // A post returns early only while another thread applies; all are applied by now.
        #expect(log.all.count - before == threads * rounds)
        #expect(session.state.withLockedValue { $0.outbox.isEmpty && !$0.isDraining })

        // Levels reached the target in the order they were decided: each call flips its value.
        let calls = recorder.calls
        func flips(_ values: [Bool]) -> Bool { zip(values, values.dropFirst()).allSatisfy { $0 != $1 } }
        #expect(flips(calls.compactMap { if case .effectsMuted(let v) = $0 { v } else { nil } }))
        #expect(flips(calls.compactMap { if case .gameMusicMuted(let v) = $0 { v } else { nil } }))
        #expect(flips(calls.compactMap { if case .effectsPaused(let v) = $0 { v } else { nil } }))

        let decision = session.decision
        let target = recorder.state.withLockedValue { ($0.effectsMuted, $0.gameMusicMuted, $0.effectsPaused) }
        #expect(
            target.0 == decision.effectsMuted && target.1 == decision.gameMusicMuted
                && target.2 == decision.effectsPaused)
        #expect(decision == SessionPolicy.decide(category: .ambient, options: [], environment: session.environment))
        #expect((recorder.player(player) == .interrupted) == session.environment.isInterrupted)
    }

    @Test func updatesArriveInOrderOnAStreamWhileThreadsPost() async throws {
        let (session, _, _, _) = makeSession()
        let stream = session.events()
        let total = 4 * 50
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for round in 0..<50 { session.post(.otherAudioStarted(name: "\(thread)-\(round)")) }
        }
        var seen = Set<String>()
        for await update in stream {
            if case .event(.otherAudioStarted(let name), _) = update.cause { seen.insert(name) }
            if seen.count == total { break }
        }
        #expect(seen.count == total)
        #expect(session.environment.otherAudio.count == total)
    }
}
