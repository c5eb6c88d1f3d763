import BackbeatOpenAL
import BackbeatSession
import BackbeatSupport
import Dispatch

/// An engine held weakly, across threads.
final class WeakEngine: @unchecked Sendable {
    // @unchecked: set once at init; a weak reference is safe to load from any thread.
    weak var engine: AudioEngine?
    init(_ engine: AudioEngine) { self.engine = engine }
}

/// The device watch's attempts to reopen a lost device, for tests: one begun
/// and not returned is waiting on the sound server.
package struct DeviceWatchAttempts: Sendable, Equatable {
    package var started = 0
    package var finished = 0
    /// Whether an attempt is waiting on the server now.
    package var isUnderWay: Bool { started > finished }
}

/// The device watch of a `.device` engine: a queue of its own that reopens a
/// lost device (first at once, then with a backoff from 0.1 s doubling to
/// 2 s), follows the default output when the engine was opened on it, and
/// closes the devices the engine left. All of these can wait on the sound
/// server (30 s on a frozen one), so none runs on the update thread or under
/// the engine lock.
///
/// The engine owns one and tells it what to do (``reopen(leaving:)``,
/// ``stop()``); the watch takes the engine lock only to install a device it
/// opened. Offline and file engines never start it.
final class DeviceWatch: Sendable {
    /// What the watch is asked to do.
    struct State {
        /// The engine shut down: the watch closes what it holds and ends.
        var stopRequested = false
        /// The engine lost its device and renders on a silent stand-in: the watch
        /// tries to open a real device again.
        var reopenWanted = false
        /// Devices the engine left, for the watch to close off the engine's
        /// thread (closing can wait on a sound server).
        var toClose: [ALDevice] = []
        /// The sound server reported a change (its default output may be
        /// another): an engine on the default device looks again.
        var serverChanged = false
        /// Counts replacements: a device the watch opened for an older state is closed, not installed.
        var generation: UInt64 = 0
        /// Attempts to reopen a lost device: begun, and returned (opened or failed).
        var attempts = DeviceWatchAttempts()
    }

    /// First wait between two attempts to reopen a lost device; it doubles after each failure.
    static let reopenFirstDelay: UInt64 = 100_000_000
    /// Longest wait between two attempts to reopen a lost device.
    static let reopenLongestDelay: UInt64 = 2_000_000_000

    private let state = ConditionLock(State())

    /// Starts the watch on a queue of its own, from the engine's init.
    ///
    /// - Parameters:
    ///   - engine: The engine to watch; the watch holds it only while it acts on it.
    ///   - requestedName: The device the engine was opened on (nil: the
    ///     default output, which the watch follows).
    func start(for engine: AudioEngine, requestedName: String?) {
        let reference = WeakEngine(engine)
        DispatchQueue(label: "Backbeat device watch", qos: .utility).async {
            self.run(of: reference, name: requestedName)
        }
    }

    /// The watch's loop. It holds the engine only while it acts on it, so the
    /// engine's last release shuts it down as usual.
    ///
    /// An engine opened on the default device (`name` nil) follows it: the
    /// watch listens to the sound server's change events (PulseAudio's
    /// subscription), and on each one asks OpenAL for the default device
    /// again. It does not poll: OpenAL Soft probes the device list under the
    /// lock every device call takes, with a PulseAudio connection and a probe
    /// stream, which stalls the engine's update thread for that long.
    private func run(of reference: WeakEngine, name: String?) {
        let watch = state
        var engine: AudioEngine? { reference.engine }
        let followsDefault = name == nil
        func listen() -> SoundServerEvents? {
            SoundServerEvents(name: "Backbeat device watch") { watch.withLockedValue { $0.serverChanged = true } }
        }
        var events = followsDefault ? listen() : nil
        defer { events?.stop() }
        var delay = Self.reopenFirstDelay
        while true {
            let (stop, toClose, reopen, generation, changed) = watch.withLockedValue { state in
                defer {
                    state.toClose.removeAll()
                    state.serverChanged = false
                }
                return (state.stopRequested, state.toClose, state.reopenWanted, state.generation, state.serverChanged)
            }
            for device in toClose { device.close() }
            if stop || engine == nil { break }
            if reopen {
                watch.withLockedValue { $0.attempts.started += 1 }
                let opened = try? ALDevice.openPlayback(name: name)
                watch.withLockedValue { $0.attempts.finished += 1 }
                if let opened {
                    if let engine {
                        install(
                            opened, into: engine, generation: generation, previous: nil,
                            reason: "the device came back")
                    }
                    delay = Self.reopenFirstDelay
                    // The server came back: listen to it again.
                    if followsDefault, events?.isAlive != true {
                        events?.stop()
                        events = listen()
                    }
                    continue
                }
                _ = watch.wait(until: MonotonicClock.now() + delay) { $0.stopRequested || !$0.toClose.isEmpty }
                delay = min(delay * 2, Self.reopenLongestDelay)
                continue
            }
            delay = Self.reopenFirstDelay
            if followsDefault, changed {
                followDefault(of: reference, generation: generation)
                continue
            }
            _ = watch.wait(until: .max) {
                $0.stopRequested || $0.reopenWanted || !$0.toClose.isEmpty || $0.serverChanged
            }
        }
        ALDevice.clearThreadContext()
    }

    /// Asks OpenAL for the default output (the device list probed again);
    /// when it is no longer the device the engine plays through, opens the
    /// default and moves everything there, as after a loss but with nothing
    /// paused. The engine is not held while the server answers.
    private func followDefault(of reference: WeakEngine, generation: UInt64) {
        guard let current = reference.engine?.deviceName else { return }
        guard let wanted = ALDevice.defaultPlaybackDeviceName(), wanted != current else { return }
        guard let opened = try? ALDevice.openPlayback(name: nil) else { return }
        guard opened.name != current, let engine = reference.engine else {
            opened.close()
            return
        }
        install(opened, into: engine, generation: generation, previous: current, reason: "the default output changed")
    }

    /// Moves everything onto `opened`, a real device the watch opened, unless
    /// the engine shut down or its device changed since (`generation`): then
    /// `opened` is closed instead. The device left comes back to the watch.
    private func install(
        _ opened: ALDevice, into engine: AudioEngine, generation: UInt64, previous: String?, reason: String
    ) {
        let installed = engine.withLock { () -> [@Sendable () -> Void]? in
            let current = state.withLockedValue { state -> Bool in
                guard state.generation == generation, !state.stopRequested else { return false }
                state.generation &+= 1
                state.reopenWanted = false
                return true
            }
            guard current, engine.isRunningLocked else { return nil }
            let old = engine.replaceDeviceLocked(with: opened, readPositions: true)
            state.withLockedValue { $0.toClose.append(old) }
            engine.postLocked(.outputChanged(device: opened.name, previous: previous, reason: reason))
            let session = engine.session
            let before = AudioRoute(name: previous ?? "none")
            let now = AudioRoute(name: opened.name)
            engine.postLocked(callback: { session.systemNewDevice(previousRoute: before, currentRoute: now) })
            return engine.takeRecoveryWorkLocked()
        }
        guard let installed else {
            opened.close()
            return
        }
        engine.runRecoveryWork(installed)
        engine.deliverPendingEvents()
    }

    /// The engine lost its device and moved onto a silent stand-in: the watch
    /// closes `lost` and tries to open a real device again.
    ///
    /// - Parameter lost: The device the engine left.
    func reopen(leaving lost: ALDevice) {
        state.withLockedValue {
            $0.toClose.append(lost)
            $0.reopenWanted = true
            $0.generation &+= 1
        }
    }

    /// The watch's attempts to reopen a lost device so far.
    var attempts: DeviceWatchAttempts { state.withLockedValue { $0.attempts } }

    /// Ends the watch (at shutdown): it closes the devices it still holds and
    /// stops. Shutdown does not wait for it: it may be waiting on a frozen server.
    func stop() {
        state.withLockedValue { $0.stopRequested = true }
    }
}
