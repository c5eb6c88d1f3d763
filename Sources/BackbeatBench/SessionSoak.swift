import Backbeat
import BackbeatEngine
import BackbeatSession
import BackbeatSupport

/// Session traffic: category changes, activation, interruptions, route
/// changes, the silent switch and other programs' audio, posted from the
/// game loop while the engine renders on its own thread.
///
/// It drives the engine's own session, so its decisions reach the effects
/// (muted, paused, stopped) while they play.
package final class SessionSoak: SoakParticipant {
    package let name = "session"
    private var session: AudioSession?
    private var observation: ObservationToken?
    /// Session updates delivered so far (written by the session's callback).
    private final class Count: Sendable { let value = LockedValueBox(0) }
    private let updates = Count()
    private(set) var events = 0
    private var nextEvent = 0.0

    /// A session load.
    package init() {}

    package func start(engine: AudioEngine) throws {
        let session = engine.session
        let updates = self.updates
        observation = session.observe { _ in updates.value.withLockedValue { $0 += 1 } }
        try session.setCategory(.ambient)
        session.setActive(true)
        self.session = session
    }

    package func tick(engine: AudioEngine, random: inout SeededRandom, second: Double) {
        guard let session, second >= nextEvent else { return }
        nextEvent = second + 0.2 + 1.5 * random.nextUnit()
        events += 1
        let headphones = AudioRoute(name: "headphones")
        let speakers = AudioRoute.defaultOutput
        switch random.next(in: 0..<9) {
        case 0:
            let category = AudioSession.Category.allCases[random.next(in: 0..<AudioSession.Category.allCases.count)]
            let options =
                category == .playback
                ? AudioSession.CategoryOptions.allCombinations[
                    random.next(in: 0..<AudioSession.CategoryOptions.allCombinations.count)]
                : []
            try? session.setCategory(category, options: options)
        case 1: session.setActive(!session.isActive)
        case 2: session.post(.interruptionBegan)
        case 3: session.post(.interruptionEnded(shouldResume: random.next(in: 0..<2) == 0))
        case 4:
            session.post(.routeChange(reason: .oldDeviceUnavailable, previousRoute: headphones, currentRoute: speakers))
        case 5:
            session.post(.routeChange(reason: .newDeviceAvailable, previousRoute: speakers, currentRoute: headphones))
        case 6: session.post(.silentSwitch(on: random.next(in: 0..<2) == 0))
        case 7: session.post(.otherAudioStarted(name: "podcast"))
        default: session.post(.otherAudioStopped(name: "podcast"))
        }
    }

    package func finish(engine: AudioEngine) {
        // Back to a state where nothing is held: paused effects resume and end.
        if let session {
            session.post(.interruptionEnded(shouldResume: true))
            session.post(.silentSwitch(on: false))
            session.post(.otherAudioStopped(name: "podcast"))
            try? session.setCategory(.soloAmbient)
            session.setActive(true)
            observation?.cancel()
            observation = nil
        }
        session = nil
    }

    package var underruns: Int { 0 }
    package var summary: String { "\(events) session events, \(updates.value.withLockedValue { $0 }) updates" }
}
