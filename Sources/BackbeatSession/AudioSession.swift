import BackbeatMedia
import BackbeatSupport

/// How the game's audio shares the machine: a category, its options, and the
/// environment the session hears about (interruptions, routes, the silent
/// switch, other programs' audio).
///
/// There is one session per engine. Every change — an event, activation, a new
/// category — re-evaluates `SessionPolicy.decide(category:options:environment:)`
/// and applies the difference; nothing is decided once at launch. Each applied
/// decision is reported as a ``SessionUpdate`` through ``events()`` and ``observe(_:)``.
///
/// ```swift
/// try session.setCategory(.playback, options: .mixWithOthers)
/// session.setActive(true)
/// session.post(.routeChange(reason: .oldDeviceUnavailable,
///                           previousRoute: AudioRoute(name: "headphones"),
///                           currentRoute: AudioRoute(name: "speakers")))
/// // update: "music paused: headphones unplugged"
/// ```
///
/// Changing the category while active is allowed: the new rules apply at once
/// (other audio is asked to stop, duck or come back as the new category says),
/// as a game moving from an ambient menu to a playback level expects.
///
/// Thread safety: every method may be called from any thread. Changes are
/// applied one at a time in the order they were accepted. A call returns after
/// its change is applied, unless another thread is applying changes at that
/// moment; that thread then applies it, in order, before it returns. Callbacks
/// and engine calls never run under the session's lock, so a callback may post.
public final class AudioSession: Sendable {
    struct State {
        var category: Category = .soloAmbient
        var options: CategoryOptions = []
        var isActive = false
        var environment = SessionEnvironment()
        var decision: SessionDecision
        /// Whether other audio has been asked to duck and not yet restored.
        var othersDucked = false
        /// Whether other audio has been asked to stop since the session last became inactive.
        var othersInterrupted = false

        /// Work accepted but not yet applied, in order.
        var outbox: [Work] = []
        var isDraining = false

        /// The players an interruption stopped; read and written only while draining.
        var interruptedPlayers: Set<SessionPlayerID> = []

        weak var target: (any SessionTarget)?
        var otherAudioController: (any OtherAudioController)?
        /// Where updates are delivered (see ``setUpdateDelivery(_:)``); nil: inline.
        var updateDelivery: (@Sendable (@escaping @Sendable () -> Void) -> Void)?
        /// Where accepted calls go while the engine captures (see ``setCaptureHook(_:)``).
        var captureHook: (@Sendable (SessionCaptureCall) -> Void)?
    }

    /// Actions to apply and the update that reports them.
    struct Work {
        var update: SessionUpdate
        /// Actions that are applied but not reported (bringing a new target up to date).
        var silent: Bool = false
        /// The player whose play request ends an interruption: it plays by itself.
        var exempting: SessionPlayerID?
    }

    let state: LockedValueBox<State>
    /// Observers and streams of updates (each stream keeps the newest 1,024 unread).
    let broadcast = EventBroadcast<SessionUpdate>(bufferLimit: 1_024)
    /// Engine time. Never called under the session lock: the engine may hold its
    /// own lock and post to the session at the same time.
    package let clock: @Sendable () -> MediaTime

    /// Creates a session on an engine clock, applying decisions to `target` and
    /// sending requests about other audio to `otherAudio`.
    package init(
        clock: @escaping @Sendable () -> MediaTime,
        target: (any SessionTarget)? = nil, otherAudio: (any OtherAudioController)? = nil
    ) {
        self.clock = clock
        var initial = State(
            decision: SessionPolicy.decide(category: .soloAmbient, options: [], environment: SessionEnvironment()))
        initial.target = target
        initial.otherAudioController = otherAudio
        state = LockedValueBox(initial)
        if target != nil { bringTargetUpToDate() }
    }

    deinit {
        broadcast.finish()
    }

    // MARK: Reading

    /// The category; ``Category/soloAmbient`` until changed.
    public var category: Category { state.withLockedValue { $0.category } }
    /// The category's options.
    public var options: CategoryOptions { state.withLockedValue { $0.options } }
    /// Whether the session is active.
    public var isActive: Bool { state.withLockedValue { $0.isActive } }
    /// The environment as the session last heard it.
    public var environment: SessionEnvironment { state.withLockedValue { $0.environment } }
    /// The decision in force.
    package var decision: SessionDecision { state.withLockedValue { $0.decision } }
    /// Whether another program is playing audio.
    public var isOtherAudioPlaying: Bool { state.withLockedValue { $0.environment.isOtherAudioPlaying } }
    /// Whether the game should silence secondary audio (its soundtrack) because
    /// other audio is playing.
    public var secondaryAudioShouldBeSilencedHint: Bool {
        state.withLockedValue { $0.decision.secondaryAudioShouldBeSilencedHint }
    }
    /// The output in use.
    public var currentRoute: AudioRoute { state.withLockedValue { $0.environment.currentRoute } }

    // MARK: Configuring

    /// Sets the category and its options, effective at once, active or not.
    ///
    /// - Parameters:
    ///   - category: How the game's audio relates to other audio and the silent switch.
    ///   - options: `.mixWithOthers` or `.duckOthers`, with ``Category/playback`` only.
    /// - Throws: ``BackbeatError/Code/invalidSessionOptions`` when an option is
    ///   set with a category other than ``Category/playback``; the session is unchanged.
    public func setCategory(_ category: Category, options: CategoryOptions = []) throws {
        try SessionPolicy.validate(category: category, options: options)
        captured(.category(category, options))
        let time = clock()
        submit { s in
            let before = s.decision
            s.category = category
            s.options = options
            var extra: [SessionAction] = []
            let after = Self.decide(s)
            if s.isActive, after.otherAudioRequest == .interrupt, before.otherAudioRequest != .interrupt {
                extra.append(.interruptOtherAudio)
            }
            return Self.work(&s, cause: .categoryChange(category, options), time: time, edges: [], requests: extra)
        }
    }

    /// Activates or deactivates the session.
    ///
    /// Activating asks other audio to stop (``Category/soloAmbient``, or
    /// ``Category/playback`` without ``CategoryOptions/mixWithOthers``) or to duck
    /// (``CategoryOptions/duckOthers``). If an interruption began and never ended,
    /// activating ends it: effects resume and the interrupted players stay paused.
    /// Deactivating lets ducked audio return to its level and resumes the other
    /// audio that activating stopped.
    ///
    /// - Parameter active: True to activate, false to deactivate.
    public func setActive(_ active: Bool) {
        captured(.active(active))
        let time = clock()
        submit { s in
            let wasActive = s.isActive
            s.isActive = active
            var edges: [SessionAction] = []
            if active, s.environment.isInterrupted {
                s.environment.isInterrupted = false
                edges.append(.keepMusicPaused)
            }
            var requests: [SessionAction] = []
            if active, !wasActive, s.decision.otherAudioRequest == .interrupt {
                requests.append(.interruptOtherAudio)
            }
            return Self.work(&s, cause: .activation(active), time: time, edges: edges, requests: requests)
        }
    }

    // MARK: Events

    /// Reports something that happened outside the game, such as a call
    /// (``SessionEvent/interruptionBegan``) or the silent switch.
    ///
    /// Events that change nothing are reported as ignored, with the reason:
    /// an ``SessionEvent/interruptionEnded(shouldResume:)`` with no began (there is
    /// nothing to resume, and resuming could start music the user stopped), a
    /// second began, a switch already in that position, other audio already
    /// started or not playing.
    ///
    /// - Parameter event: What happened; applied at the engine's current time.
    public func post(_ event: SessionEvent) {
        post(event, source: .hostGame, at: clock())
    }

    /// Reports an event from `source` that happened at engine time `time`.
    package func post(_ event: SessionEvent, source: SessionEventSource, at time: MediaTime) {
        captured(.event(event, source: source))
        submit { s in
            let transition = SessionPolicy.transition(event, from: s.environment)
            let cause = SessionUpdate.Cause.event(event, source: source)
            if let why = transition.ignoredBecause {
                return Work(
                    update: SessionUpdate(
                        cause: cause, time: time, decision: s.decision, actions: [],
                        ignoredBecause: why))
            }
            s.environment = transition.environment
            var requests: [SessionAction] = []
            if case .otherAudioStarted = event, s.isActive {
                switch Self.decide(s).otherAudioRequest {
                case .interrupt: requests.append(.interruptOtherAudio)
                // Already ducking: the newcomer must be lowered too.
                case .duck where s.othersDucked: requests.append(.duckOtherAudio)
                case .duck, .mix: break
                }
            }
            return Self.work(&s, cause: cause, time: time, edges: transition.playerActions, requests: requests)
        }
    }

    /// The OpenAL device went away: the system's route change, reported by the engine.
    package func systemLostDevice(previousRoute: AudioRoute, currentRoute: AudioRoute) {
        post(
            .routeChange(reason: .oldDeviceUnavailable, previousRoute: previousRoute, currentRoute: currentRoute),
            source: .system, at: clock())
    }

    /// A device the engine can play through appeared (a lost device or its
    /// server came back): the system's route change,
    /// reported by the engine. Nothing pauses.
    package func systemNewDevice(previousRoute: AudioRoute, currentRoute: AudioRoute) {
        post(
            .routeChange(reason: .newDeviceAvailable, previousRoute: previousRoute, currentRoute: currentRoute),
            source: .system, at: clock())
    }

    /// A music player is about to play. If an interruption began and never
    /// ended, this ends it so the engine is not wedged: effects resume and the
    /// other interrupted players stay paused; `player` plays by itself.
    package func playRequested(by player: SessionPlayerID) {
        let time = clock()
        submit { s in
            guard s.environment.isInterrupted else { return nil }
            s.environment.isInterrupted = false
            var work = Self.work(&s, cause: .playRequest, time: time, edges: [.keepMusicPaused], requests: [])
            work.exempting = player
            return work
        }
    }

    // MARK: Engine side

    /// Sets what hears every call that changes the session (nil: nothing),
    /// before the call is applied and outside the session's lock: the engine
    /// writes them into its capture, stamped with the engine frame.
    ///
    /// - Parameter hook: Called with each call; must not call the session.
    package func setCaptureHook(_ hook: (@Sendable (SessionCaptureCall) -> Void)?) {
        state.withLockedValue { $0.captureHook = hook }
    }

    /// Hands `call` to the capture hook, if one is set.
    func captured(_ call: SessionCaptureCall) {
        state.withLockedValue { $0.captureHook }?(call)
    }

    /// Sets the engine side that applies decisions and brings it up to date.
    package func attach(target: any SessionTarget) {
        state.withLockedValue { $0.target = target }
        bringTargetUpToDate()
    }

    /// Sets the controller that reaches other programs' audio.
    package func attach(otherAudio: any OtherAudioController) {
        state.withLockedValue { $0.otherAudioController = otherAudio }
    }

    private func bringTargetUpToDate() {
        let time = clock()
        submit { s in
            let d = s.decision
            let actions: [SessionAction] = [
                .setEffectsMuted(d.effectsMuted), .setEffectsPaused(d.effectsPaused),
                .setGameMusicMuted(d.gameMusicMuted),
                .setMusicPlayerHeldBack(d.gameMusicHeldBack),
            ]
            return Work(
                update: SessionUpdate(
                    cause: .activation(s.isActive), time: time, decision: d,
                    actions: actions, ignoredBecause: nil), silent: true)
        }
    }

    // MARK: Deciding (under the lock)

    private static func decide(_ s: State) -> SessionDecision {
        SessionPolicy.decide(category: s.category, options: s.options, environment: s.environment)
    }

    /// Re-decides, and turns the difference from the decision in force into
    /// actions: levels first, then the players' edges, then requests to other audio.
    private static func work(
        _ s: inout State, cause: SessionUpdate.Cause, time: MediaTime,
        edges: [SessionAction], requests: [SessionAction]
    ) -> Work {
        let before = s.decision
        let after = decide(s)
        var actions: [SessionAction] = []
        if after.effectsMuted != before.effectsMuted { actions.append(.setEffectsMuted(after.effectsMuted)) }
        if after.gameMusicMuted != before.gameMusicMuted { actions.append(.setGameMusicMuted(after.gameMusicMuted)) }
        if after.gameMusicHeldBack != before.gameMusicHeldBack {
            actions.append(.setMusicPlayerHeldBack(after.gameMusicHeldBack))
        }
        // Effects pause after the music is marked interrupted, and resume before it resumes.
        if after.effectsPaused, !before.effectsPaused {
            actions += edges
            actions.append(.setEffectsPaused(true))
        } else {
            if !after.effectsPaused, before.effectsPaused { actions.append(.setEffectsPaused(false)) }
            actions += edges
        }
        // Other audio is asked to stop or duck only when there is someone to
        // ask (an attached controller, such as the desktop); otherwise the
        // update would report a request that went nowhere.
        let canAsk = s.otherAudioController != nil
        if canAsk {
            actions += requests
            if requests.contains(.interruptOtherAudio) { s.othersInterrupted = true }
        }
        let duck = canAsk && s.isActive && after.otherAudioRequest == .duck
        var restore = false
        if duck != s.othersDucked {
            if duck { actions.append(.duckOtherAudio) } else { restore = true }
            s.othersDucked = duck
        }
        // Deactivating gives back what activating took: the players it paused resume.
        if !s.isActive, s.othersInterrupted {
            restore = true
            s.othersInterrupted = false
        }
        if restore { actions.append(.restoreOtherAudio) }
        s.decision = after
        return Work(
            update: SessionUpdate(cause: cause, time: time, decision: after, actions: actions, ignoredBecause: nil))
    }

    // MARK: Applying (outside the lock, one at a time)

    /// Accepts work under the lock, then applies everything pending unless
    /// another thread is already applying.
    func submit(_ accept: (inout State) -> Work?) {
        let shouldDrain = state.withLockedValue { s -> Bool in
            if let work = accept(&s) { s.outbox.append(work) }
            guard !s.isDraining, !s.outbox.isEmpty else { return false }
            s.isDraining = true
            return true
        }
        if shouldDrain { drain() }
    }

    private func drain() {
        while true {
            let next = state.withLockedValue { s -> (Work, (any SessionTarget)?, (any OtherAudioController)?)? in
                guard !s.outbox.isEmpty else {
                    s.isDraining = false
                    return nil
                }
                return (s.outbox.removeFirst(), s.target, s.otherAudioController)
            }
            guard let (work, target, others) = next else { return }
            apply(work, target: target, others: others)
        }
    }

    private func apply(_ work: Work, target: (any SessionTarget)?, others: (any OtherAudioController)?) {
        let reason = work.update.reason
        for action in work.update.actions {
            switch action {
            case .setEffectsMuted(let on): target?.setEffectsMuted(on)
            case .setEffectsPaused(let on): target?.setEffectsPaused(on)
            case .setGameMusicMuted(let on): target?.setGameMusicMuted(on)
            case .setMusicPlayerHeldBack(let on): target?.setMusicPlayerHeldBack(on)
            case .markMusicInterrupted:
                let players = target?.markInterrupted(reason: reason) ?? []
                state.withLockedValue { $0.interruptedPlayers.formUnion(players) }
            case .pauseMusic:
                target?.pauseMusic(reason: reason)
                // The output went away during an interruption: its end must not
                // resume music on a different output.
                let interrupted = takeInterruptedPlayers()
                if !interrupted.isEmpty { target?.keepMusicPaused(interrupted, reason: reason) }
            case .resumeMusic:
                let players = takeInterruptedPlayers()
                if !players.isEmpty { target?.resumeMusic(players, reason: reason) }
            case .keepMusicPaused:
                var players = takeInterruptedPlayers()
                if let exempt = work.exempting { players.remove(exempt) }
                if !players.isEmpty { target?.keepMusicPaused(players, reason: reason) }
            case .interruptOtherAudio: others?.interruptOtherAudio()
            case .duckOtherAudio: others?.duckOtherAudio()
            case .restoreOtherAudio: others?.restoreOtherAudio()
            case .duckMusic(let duck): target?.duckMusic(duck)
            }
        }
        if !work.silent { deliver(work.update) }
    }

    private func takeInterruptedPlayers() -> Set<SessionPlayerID> {
        state.withLockedValue { s in
            defer { s.interruptedPlayers = [] }
            return s.interruptedPlayers
        }
    }
}
