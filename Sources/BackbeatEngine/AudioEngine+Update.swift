import BackbeatOpenAL
import BackbeatSupport

/// The update step: the components and step observers an engine steps,
/// and what each step does to the buses and components.
extension AudioEngine {
    /// Adds a component to the update loop, after the others.
    package func register(_ component: any EngineComponent) {
        withLock { registerLocked(component) }
    }

    /// ``register(_:)`` with the lock held; `first` puts the component before
    /// the others (the voice pool: its voices see this step's bus gains
    /// before anything else the step changes).
    ///
    /// - Parameters:
    ///   - component: The component to step; the engine holds it weakly.
    ///   - first: Whether it steps before the components already registered.
    package func registerLocked(_ component: any EngineComponent, first: Bool = false) {
        preconditionLocked()
        components.insert(WeakComponent(component: component), at: first ? 0 : components.count)
    }

    /// Asks for an update step, with the lock held: what a waking
    /// ``withLock(waking:_:)`` does as it leaves, for a call that took the
    /// lock without waking and found, under it, that it changed something.
    package func requestStepLocked() {
        preconditionLocked()
        stepRequested = true
        updateLoop.wakeLocked()
    }

    /// Adds an observer that sees every update step begin, without the lock
    /// (a scripted environment: it posts to the session, whose decisions take
    /// the lock). The engine holds it weakly.
    package func addStepObserver(_ observer: any EngineStepObserver) {
        withLock { stepObservers.append(WeakStepObserver(observer: observer)) }
    }

    /// Tells the step observers that the step at `frame` begins (without the lock).
    func notifyStepObservers(at frame: Int64) {
        let observers = withLock { () -> [any EngineStepObserver] in
            stepObservers.removeAll { $0.observer == nil }
            return stepObservers.compactMap(\.observer)
        }
        for observer in observers { observer.engineWillStep(at: frame) }
    }

    /// One update step at `frame`: the buses, then every component, their
    /// OpenAL changes applied together.
    func runUpdateLocked(at frame: Int64) throws {
        preconditionLocked()
        let cpuStart = telemetryStepStartLocked
        defer { publishTelemetryLocked(at: frame, cpuStart: cpuStart) }
        fileWatchStorage?.pollLocked()
        // A loopback device mixes only inside render, after this step, so its
        // changes land together anyway; a real device mixes on its own thread,
        // so its changes are deferred and applied at once.
        // Inside a game's batch (`performBatchUpdates`) the changes are already
        // held back, and the batch's end applies them with the game's.
        if device.isLoopback || openBatches > 0 {
            try device.withContext("update") { try updateComponentsLocked(at: frame) }
        } else {
            try device.batch { try updateComponentsLocked(at: frame) }
        }
        fileWatchStorage?.stepRanLocked(at: frame)
    }

    private func updateComponentsLocked(at frame: Int64) throws {
        updateBusesLocked(at: frame)
        var index = 0
        while index < components.count {
            if let component = components[index].component {
                try component.update(at: frame)
                index += 1
            } else {
                components.remove(at: index)
            }
        }
    }

    /// Advances bus fades and ducks, then computes each bus's gain and pause
    /// once for the step, for every voice to read.
    private func updateBusesLocked(at frame: Int64) {
        for bus in buses {
            if let completion = bus.update(at: frame) {
                postLocked(.fadeCompleted(bus: bus.name))
                postLocked(callback: completion)
            }
        }
        var changed = false
        for bus in buses { bus.stepEffectSlot(at: frame, device: device) }
        for bus in buses {
            let effect = bus.effectiveEffect(at: frame)
            if effect?.slot != bus.stepEffect?.slot || effect?.wet != bus.stepEffect?.wet { changed = true }
            bus.stepEffect = effect
            let gain = bus.effectiveGain(at: frame)
            let paused = bus.isEffectivelyPaused
            let filter = bus.effectiveFilter(at: frame)
            if gain != bus.stepGain || paused != bus.stepPaused || filter != bus.stepFilter { changed = true }
            bus.stepGain = gain
            bus.stepPaused = paused
            bus.stepFilter = filter
        }
        busesChangedThisStep = changed
    }

    // MARK: What is due

    /// The earliest engine frame after a step at `frame` at which an update
    /// step would change anything (what is mixed, reported or posted): a
    /// render skips the periods before it. Unlike ``nextDueFrameLocked(after:)``
    /// (a device's wakeup, which may come early), never late.
    func nextStepFrameLocked(after frame: Int64) -> Int64? {
        preconditionLocked()
        return earliestFrameLocked(after: frame) { $0.nextStepFrame(after: frame) }
    }

    /// The earliest engine frame after a step at `frame` at which a bus
    /// (a fade, duck, filter or effect glide under way), a step observer or a
    /// component has work due; nil when nothing is due until the game
    /// changes something.
    ///
    /// - Parameter frame: The frame of the step just taken.
    /// - Returns: The frame, or nil when nothing is due.
    package func nextDueFrameLocked(after frame: Int64) -> Int64? {
        preconditionLocked()
        let due = earliestFrameLocked(after: frame) { $0.nextDueFrame(after: frame) }
        // Followed files are read in the step: look often enough that an edit is heard soon.
        guard let watch = fileWatchStorage, watch.isFollowingLocked else { return due }
        let look = frame + Int64(max(1, sampleRate / EngineFileWatch.pollsPerSecond))
        return min(due ?? look, look)
    }

    /// `frame` while a step observer listens or a bus moves; otherwise the
    /// earliest of the components' answers (nil: none).
    private func earliestFrameLocked(after frame: Int64, _ ask: (any EngineComponent) -> Int64?) -> Int64? {
        if !stepObservers.isEmpty { return frame }
        for bus in buses where bus.isChangingLocked(at: frame) { return frame }
        var due = nextTelemetryWakeFrameLocked
        if let snapshot = due, snapshot <= frame { return frame }
        for entry in components {
            guard let component = entry.component, let next = ask(component) else { continue }
            if next <= frame { return frame }
            due = min(due ?? next, next)
        }
        return due
    }
}
