import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatSupport
import Dispatch

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SoundBank: ReloadableFile {
    /// What a bank reports about its file: a reload that took, or one that did not.
    public enum Event: Sendable, Equatable {
        /// The bank's file changed and was read again: `events` are its events
        /// now, in order; `removed` those it no longer has (their plays are refused).
        case reloaded(events: [String], removed: [String])
        /// The bank's file changed but does not parse or check: the old
        /// definitions stay. The failure names the file, line, column and reason.
        case reloadFailed(ReloadFailure)
    }

    /// Why an edited bank was not taken: the error, and where in the file it is.
    public struct ReloadFailure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The error loading the bank would throw (``BackbeatError/Code/invalidSoundBank``).
        public let error: BackbeatError
        /// The line of the problem in the bank file, from 1 (nil when the
        /// file could not be read at all).
        public let line: Int?
        /// The column of the problem, from 1, in characters.
        public let column: Int?

        /// One line, as a compiler gives it: `PATH:LINE:COLUMN: reason`.
        public var description: String {
            var text = error.url?.path ?? "bank"
            if let line, let column { text += ":\(line):\(column)" }
            return text + ": " + (error.reason ?? error.code.description)
        }
    }

    /// Whether the bank follows its file while the game runs: when the file
    /// is written or replaced (an editor that renames a temporary file over
    /// it included), new plays of its events use the new definitions, plays
    /// under way carry on to their end, events the file no longer has stop
    /// being playable (a play is refused, and says so once in the log), and
    /// a file that does not parse or check keeps the old definitions and
    /// reports one line through ``observe(_:)``, the log and a monitor.
    ///
    /// On by default while the engine serves monitors (``AudioEngine/isMonitoring``
    /// when the bank was loaded), off otherwise; `backbeat monitor PID --reload`
    /// reloads changed files either way. Only a bank read from a file
    /// (``init(contentsOf:engine:buses:)``) follows it.
    public var reloadsWhenChanged: Bool {
        get {
            guard isFile, let engine else { return false }
            return locked { state.followsFile ?? engine.isServingMonitorsLocked }
        }
        set {
            guard isFile, let engine else { return }
            engine.withLock {
                state.followsFile = newValue
                engine.fileWatchLocked.setFollowsLocked(self, newValue)
            }
            engine.deliverPendingEvents()
        }
    }

    /// Calls `handler` with each ``Event`` from now on (reloads and failed
    /// reloads), where the engine delivers its events, never under its lock.
    ///
    /// - Parameter handler: Called with each event, in order.
    /// - Returns: A token that removes the handler when cancelled (dropping it does not).
    @discardableResult
    public func observe(_ handler: @escaping @Sendable (Event) -> Void) -> ObservationToken {
        broadcast.observe(handler)
    }

    /// The event named `name`.
    ///
    /// - Parameter name: The event's name in the bank.
    /// - Returns: The event.
    /// - Throws: ``BackbeatError/Code/unknownSoundEvent`` naming the bank and
    ///   listing its events, or saying that a reload removed it.
    public func event(named name: String) throws(BackbeatError) -> SoundEvent {
        let (event, removed, names) = locked {
            (state.byName[name], state.removed[name] != nil, state.events.map(\.name))
        }
        if let event { return event }
        throw BackbeatError(
            .unknownSoundEvent, operation: "event(named: \"\(name)\")", url: url,
            reason: removed
                ? "the bank's last reload removed it" : "the bank has \(names.joined(separator: ", "))")
    }

    /// The queue banks are read again on, off the engine's lock and update thread.
    private static let reloader = DispatchQueue(label: "Backbeat bank reloader", qos: .userInitiated)

    package func reloadLocked(done: @escaping @Sendable (FileReloadOutcome) -> Void) {
        guard let engine else { return }
        let budget = engine.effectCacheLocked.budget
        let known = Set(state.busByName.keys)
        let loads = engine.backgroundLoads
        let token = loads.begin()
        let url = url
        Self.reloader.async { [weak self, weak engine] in
            defer { if let token { loads.end(token) } }
            guard let self, let engine else { return }
            let locator = BankLocator()
            let result: Result<BankDefinition, ReloadFailure>
            var text: Data?
            do {
                let read = try BankDefinition.loadWithText(url, budget: budget, locator: locator)
                result = .success(read.definition)
                text = read.text
            } catch {
                let wrapped =
                    error as? BackbeatError
                    ?? BackbeatError(.invalidSoundBank, operation: "SoundBank", url: url, reason: "\(error)")
                result = .failure(ReloadFailure(error: wrapped, line: locator.line, column: locator.column))
            }
            // New buses are made outside the lock (making one takes it).
            var made: [String: Bus] = [:]
            if case .success(let definition) = result {
                for name in definition.buses where !known.contains(name) {
                    made[name] = engine.makeBus(named: name)
                }
            }
            let captured = text.map { Self.captured(url: url, text: $0) }
            engine.withLock { done(self.applyReloadLocked(result, buses: made, captured: captured)) }
            engine.deliverPendingEvents()
        }
    }

    /// Where a bank's reload takes effect, with the lock held: a checked
    /// definition replaces the events' definitions (kept events are the same
    /// objects, so a game's references follow), new events are made, removed
    /// ones refuse their plays; sounds still named are kept, new ones start
    /// loading within the cache budget. A failure changes nothing. Either
    /// way one line goes to the log and a monitor, and an ``Event`` to the
    /// bank's observers.
    ///
    /// - Parameters:
    ///   - result: The bank file read and checked again, or why it was not.
    ///   - buses: Buses the new definition declares that were made for it.
    ///   - captured: The text read, for a capture's record (nil: a replay applying one).
    /// - Returns: The line the monitor's `reload` reply gives.
    func applyReloadLocked(
        _ result: Result<BankDefinition, ReloadFailure>, buses made: [String: Bus], captured: CapturedFile?
    )
        -> FileReloadOutcome
    {
        guard let engine else { return .failed("\(url.path): the engine has shut down") }
        engine.preconditionLocked()
        let path = url.path
        let definition: BankDefinition
        switch result {
        case .failure(let failure):
            engine.logLocked(
                .warning, "\(failure.description) (the bank's old definitions stay)",
                key: "reloadFailed:\(path)", problem: "reloadFailed")
            let broadcast = broadcast
            engine.postLocked(callback: { broadcast.send(.reloadFailed(failure)) })
            return .failed(failure.description)
        case .success(let d):
            definition = d
        }
        var next = state
        for (name, bus) in made { next.busByName[name] = bus }
        next.buses = definition.buses.compactMap { next.busByName[$0] }
        var sounds: [SoundEffect] = []
        var byKey: [String: SoundEffect] = [:]
        var fresh: [SoundEffect] = []
        var planned = 0
        next.preloaded = []
        for file in definition.files {
            let sound = state.soundByKey[file.key] ?? SoundEffect(asset: file.asset, engine: engine)
            if state.soundByKey[file.key] == nil {
                sound.bank = self
                sound.bankKey = file.key
                fresh.append(sound)
            }
            byKey[file.key] = sound
            sounds.append(sound)
            if planned + file.bytes <= engine.effectCacheLocked.budget {
                planned += file.bytes
                next.preloaded.append(sound)
            }
        }
        next.sounds = sounds
        next.soundByKey = byKey
        var events: [SoundEvent] = []
        for entry in definition.events {
            let eventSounds = entry.sounds.map { byKey[$0.soundKey]! }
            let event: SoundEvent
            if let kept = state.byName[entry.name] ?? state.removed[entry.name] {
                event = kept
            } else if let made = try? SoundEvent(name: entry.name, sounds: eventSounds, seed: entry.seed) {
                event = made
            } else {
                continue
            }
            event.applyLocked(entry, sounds: eventSounds, bus: next.busByName[entry.bus])
            events.append(event)
        }
        next.events = events
        next.byName = Dictionary(uniqueKeysWithValues: events.map { ($0.name, $0) })
        let removed = state.events.filter { next.byName[$0.name] == nil }
        for event in removed { event.removedFrom = path }
        for event in events { next.removed[event.name] = nil }
        for event in removed { next.removed[event.name] = event }
        state = next
        if let captured { recordReloadLocked(engine, captured) }
        let cache = engine.effectCacheLocked
        for sound in fresh where next.preloaded.contains(where: { $0 === sound }) { cache.loadLocked(sound) }
        let names = events.map(\.name)
        var line = "\(path): bank reloaded, \(names.count == 1 ? "1 event" : "\(names.count) events")"
        if !removed.isEmpty { line += "; removed: \(removed.map(\.name).joined(separator: ", "))" }
        engine.logLocked(.info, line, key: "bankReloaded:\(path)", problem: "bankReloaded")
        let broadcast = broadcast
        let event = Event.reloaded(events: names, removed: removed.map(\.name))
        engine.postLocked(callback: { broadcast.send(event) })
        return .reloaded(line)
    }
}

extension BackbeatError.Code {
    /// A bank has no event of that name (or its reload removed it).
    public static let unknownSoundEvent = Self("unknown sound event")
}
