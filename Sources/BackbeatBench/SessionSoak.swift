@_spi(Benchmark) import Backbeat
import Synchronization

/// Session traffic: category changes, activation, interruptions, route
/// changes, the silent switch and other programs' audio, posted from the
/// game loop while the engine renders on its own thread.
///
/// The engine does not expose its session yet, so this drives a session on
/// the engine's clock whose decisions apply to nothing; when `engine.session`
/// lands, use it here and the effects feel the decisions too.
public final class SessionSoak: SoakParticipant {
    public let name = "session"
    private var session: AudioSession?
    /// Session updates delivered so far (written by the session's callback).
    private final class Count: Sendable { let value = Mutex(0) }
    private let updates = Count()
    private(set) var events = 0
    private var nextEvent = 0.0

    /// A session load.
    public init() {}

    public func start(engine: AudioEngine) throws {
        let session = AudioSession.detached(clock: engine)
        let updates = self.updates
        session.onUpdate = { _ in updates.value.withLock { $0 += 1 } }
        try session.setCategory(.ambient)
        session.setActive(true)
        self.session = session
    }

    public func tick(engine: AudioEngine, random: inout SeededRandom, second: Double) {
        guard let session, second >= nextEvent else { return }
        nextEvent = second + 0.2 + 1.5 * random.nextUnit()
        events += 1
        let headphones = AudioRoute(name: "headphones"), speakers = AudioRoute.defaultOutput
        switch random.next(in: 0..<9) {
        case 0:
            let category = AudioSession.Category.allCases[random.next(in: 0..<AudioSession.Category.allCases.count)]
            let options = category == .playback
                ? AudioSession.CategoryOptions.allCombinations[random.next(in: 0..<AudioSession.CategoryOptions.allCombinations.count)]
                : []
            try? session.setCategory(category, options: options)
        case 1: session.setActive(!session.isActive)
        case 2: session.post(.interruptionBegan)
        case 3: session.post(.interruptionEnded(shouldResume: random.next(in: 0..<2) == 0))
        case 4: session.post(.routeChange(reason: .oldDeviceUnavailable, previousRoute: headphones, currentRoute: speakers))
        case 5: session.post(.routeChange(reason: .newDeviceAvailable, previousRoute: speakers, currentRoute: headphones))
        case 6: session.post(.silentSwitch(on: random.next(in: 0..<2) == 0))
        case 7: session.post(.otherAudioStarted(name: "podcast"))
        default: session.post(.otherAudioStopped(name: "podcast"))
        }
    }

    public func finish(engine: AudioEngine) {
        session?.onUpdate = nil
        session = nil
    }

    public var underruns: Int { 0 }
    public var summary: String { "\(events) session events, \(updates.value.withLock { $0 }) updates" }
}
