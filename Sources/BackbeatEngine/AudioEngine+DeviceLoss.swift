#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import BackbeatSupport
import BackbeatOpenAL
import BackbeatSession

/// An engine held weakly, across threads.
final class WeakEngine: @unchecked Sendable {
    // @unchecked: set once at init; a weak reference is safe to load from any thread.
    weak var engine: AudioEngine?
    init(_ engine: AudioEngine) { self.engine = engine }
}

/// What the device watch is asked to do, behind ``AudioEngine/watch``.
struct DeviceWatchState {
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

/// The device watch's attempts to reopen a lost device, for tests: one begun
/// and not returned is waiting on the sound server.
package struct DeviceWatchAttempts: Sendable, Equatable {
    package var started = 0
    package var finished = 0
    /// Whether an attempt is waiting on the server now.
    package var isUnderWay: Bool { started > finished }
}

extension AudioEngine {
    /// First wait between two attempts to reopen a lost device; it doubles after each failure.
    static let reopenFirstDelay: UInt64 = 100_000_000
    /// Longest wait between two attempts to reopen a lost device.
    static let reopenLongestDelay: UInt64 = 2_000_000_000

    /// The output went away (ALC_EXT_disconnect on a device, or the injected
    /// path tests use). Backbeat tells the session (old device unavailable:
    /// music pauses, effects go on), opens a replacement, and moves every
    /// sound buffer, voice and stream onto it where it was, so nothing is
    /// lost. When no replacement device opens, the engine goes on rendering
    /// through a loopback device in real time, with no sound, and says so.
    ///
    /// Runs under the engine lock. A real-time engine's own detection uses
    /// ``handleDisconnectLocked()`` instead, which opens nothing here.
    func handleDeviceLossLocked(readPositions: Bool = false, reopen: (() throws -> ALDevice)? = nil) {
        let lost = device
        let previous = AudioRoute(name: lost.name)
        let reopen =
            reopen ?? {
                lost.isLoopback
                    ? try ALDevice.openLoopback(sampleRate: lost.sampleRate, channels: lost.channelCount)
                    : try ALDevice.openPlayback(name: nil)
            }
        var replacement: ALDevice?
        var fallbackReason: String?
        do {
            replacement = try reopen()
        } catch {
            // No device to move to: keep rendering, unheard, so time and events go on.
            fallbackReason = "\(error)"
            replacement = try? ALDevice.openLoopback(sampleRate: sampleRate, channels: channelCount)
        }
        guard let replacement else {
            // Not even a loopback device: nothing more can sound. Keep the state; report.
            postLocked(.outputLost(device: lost.name, replacement: nil, reason: "no OpenAL device could be opened"))
            return
        }
        replaceDeviceLocked(with: replacement, readPositions: readPositions).close()
        postLocked(
            .outputLost(
                device: lost.name,
                replacement: replacement.isLoopback && fallbackReason != nil ? nil : replacement.name,
                reason: fallbackReason ?? "device disconnected"))
        let current = AudioRoute(name: fallbackReason == nil ? replacement.name : "none")
        let session = self.session
        postLocked(callback: { session.systemLostDevice(previousRoute: previous, currentRoute: current) })
    }

    /// A real-time engine's device disconnected (seen on its update thread).
    /// Under the lock it only moves everything onto a silent loopback device
    /// that keeps engine time moving, and reports the loss; opening a real
    /// device again, and closing the lost one, are left to the device watch,
    /// off this thread, because both can wait on the sound server.
    func handleDisconnectLocked() {
        guard let fallback = try? ALDevice.openLoopback(sampleRate: sampleRate, channels: channelCount) else {
            postLocked(
                .outputLost(device: device.name, replacement: nil, reason: "no OpenAL device could be opened"))
            return
        }
        let lost = replaceDeviceLocked(with: fallback, readPositions: false)
        watch.withLockedValue {
            $0.toClose.append(lost)
            $0.reopenWanted = true
            $0.generation &+= 1
        }
        postLocked(.outputLost(device: lost.name, replacement: nil, reason: "device disconnected"))
        let previous = AudioRoute(name: lost.name)
        let session = self.session
        postLocked(callback: {
            session.systemLostDevice(previousRoute: previous, currentRoute: AudioRoute(name: "none"))
        })
    }

    /// Moves every voice, stream and buffer from the current device onto
    /// `replacement`, where it was, and returns the device left (its sources
    /// stopped; the caller closes it). `readPositions` says whether the old
    /// device can still tell where its sources were.
    @discardableResult
    func replaceDeviceLocked(with replacement: ALDevice, readPositions: Bool) -> ALDevice {
        let old = device
        let frame = currentFrameLocked
        for component in components.compactMap(\.component) {
            component.deviceWillBeReplaced(readPositions: readPositions)
        }
        // Bus effect slots belong to the old device: the next step makes new ones.
        for bus in buses { bus.effectState.slot = nil; bus.effectState.loaded = nil }
        // A device still playing falls silent now, though it closes later.
        old.stopAllSources()
        device = replacement
        device.makeContextCurrent()
        if replacement.isLoopback {
            framesRendered = frame
            nextUpdateFrame = frame
        } else {
            clockOrigin = replacement.clockNanoseconds() ?? 0
            clockBaseFrame = frame
            nextUpdateFrame = frame
        }
        stepRequested = true
        do {
            for component in components.compactMap(\.component) {
                try component.deviceWasReplaced()
            }
        } catch let error as BackbeatError {
            postLocked(.outputLost(device: old.name, replacement: replacement.name, reason: error.description))
        } catch {}
        return old
    }

    /// Simulates losing the output device, for tests: the same recovery as a
    /// real disconnect, with positions read from the old device first.
    /// `reopen` stands in for opening the replacement (throw to simulate a
    /// route change to a device that cannot be opened).
    /// The recovery's work outside the lock (decoding the cached sounds
    /// again) runs on the calling thread before it returns, so a test sees
    /// the recovered engine.
    func simulateDeviceLoss(reopen: (() throws -> ALDevice)? = nil) {
        let recovery = withLock {
            handleDeviceLossLocked(readPositions: true, reopen: reopen)
            return takeRecoveryWorkLocked()
        }
        deliverPendingEvents()
        for work in recovery { work() }
        deliverPendingEvents()
    }

    /// Leaves `work` for after the device replacement under way, outside the
    /// lock: a component's slow part of recovering (the sound cache decodes
    /// its sounds again there, then takes the lock briefly to upload them).
    /// The work must check, under the lock, that the engine still runs and
    /// that no later replacement has made it stale.
    package func afterDeviceReplacementLocked(_ work: @escaping @Sendable () -> Void) {
        recoveryWork.append(work)
    }

    /// The recovery work left so far, for the thread that handled the loss to run outside the lock.
    func takeRecoveryWorkLocked() -> [@Sendable () -> Void] {
        defer { recoveryWork.removeAll() }
        return recoveryWork
    }

    /// Runs recovery work off the calling thread (the update thread must not decode).
    func runRecoveryWork(_ work: [@Sendable () -> Void]) {
        guard !work.isEmpty else { return }
        recoveryQueue.async {
            for item in work { item() }
            ALDevice.clearThreadContext()
        }
    }

    // MARK: The device watch

    /// Starts the device watch of a `.device` engine: a queue of its own that
    /// reopens a lost device (first at once, then with a backoff from 0.1 s
    /// doubling to 2 s), follows the default output when the engine was
    /// opened on it, and closes the devices the engine left. All of these can
    /// wait on the sound server (30 s on a frozen one), so none runs on the
    /// update thread or under the lock.
    func startDeviceWatch(requestedName: String?) {
        let watch = self.watch, reference = WeakEngine(self)
        DispatchQueue(label: "Backbeat device watch", qos: .utility).async {
            Self.runDeviceWatch(of: reference, watch: watch, name: requestedName)
        }
    }

    /// The device watch's loop. It holds the engine only while it acts on it,
    /// so the engine's last release shuts it down as usual.
    ///
    /// An engine opened on the default device (`name` nil) follows it: the
    /// watch listens to the sound server's change events (PulseAudio's
    /// subscription), and on each one asks OpenAL for the default device
    /// again. It does not poll: OpenAL Soft probes the device list under the
    /// lock every device call takes, with a PulseAudio connection and a probe
    /// stream, which stalls the engine's update thread for that long.
    private static func runDeviceWatch(of reference: WeakEngine, watch: ConditionLock<DeviceWatchState>, name: String?)
    {
        var engine: AudioEngine? { reference.engine }
        let followsDefault = name == nil
        func listen() -> SoundServerEvents? {
            SoundServerEvents(name: "Backbeat device watch") { watch.withLockedValue { $0.serverChanged = true } }
        }
        var events = followsDefault ? listen() : nil
        defer { events?.stop() }
        var delay = reopenFirstDelay
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
                    engine?.install(opened, generation: generation, previous: nil, reason: "the device came back")
                    delay = reopenFirstDelay
                    // The server came back: listen to it again.
                    if followsDefault, events?.isAlive != true {
                        events?.stop()
                        events = listen()
                    }
                    continue
                }
                _ = watch.wait(until: MonotonicClock.now() + delay) { $0.stopRequested || !$0.toClose.isEmpty }
                delay = min(delay * 2, reopenLongestDelay)
                continue
            }
            delay = reopenFirstDelay
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
    private static func followDefault(of reference: WeakEngine, generation: UInt64) {
        guard let current = reference.engine?.deviceName else { return }
        guard let wanted = ALDevice.defaultPlaybackDeviceName(), wanted != current else { return }
        guard let opened = try? ALDevice.openPlayback(name: nil) else { return }
        guard opened.name != current, let engine = reference.engine else {
            opened.close()
            return
        }
        engine.install(opened, generation: generation, previous: current, reason: "the default output changed")
    }

    /// Moves everything onto `opened`, a real device the watch opened, unless
    /// the engine shut down or its device changed since (`generation`): then
    /// `opened` is closed instead. The device left goes back to the watch.
    private func install(_ opened: ALDevice, generation: UInt64, previous: String?, reason: String) {
        let installed = withLock { () -> [@Sendable () -> Void]? in
            let current = watch.withLockedValue { state -> Bool in
                guard state.generation == generation, !state.stopRequested else { return false }
                state.generation &+= 1
                state.reopenWanted = false
                return true
            }
            guard current, isRunningLocked else { return nil }
            let old = replaceDeviceLocked(with: opened, readPositions: true)
            watch.withLockedValue { $0.toClose.append(old) }
            postLocked(.outputChanged(device: opened.name, previous: previous, reason: reason))
            let session = self.session
            let before = AudioRoute(name: previous ?? "none"), now = AudioRoute(name: opened.name)
            postLocked(callback: { session.systemNewDevice(previousRoute: before, currentRoute: now) })
            return takeRecoveryWorkLocked()
        }
        guard let installed else {
            opened.close()
            return
        }
        runRecoveryWork(installed)
        deliverPendingEvents()
    }

    /// The device watch's attempts to reopen a lost device so far.
    package var deviceWatchAttempts: DeviceWatchAttempts { watch.withLockedValue { $0.attempts } }

    /// Ends the device watch (at shutdown): it closes the devices it still
    /// holds and stops. Shutdown does not wait for it: it may be waiting on a
    /// frozen server.
    func stopDeviceWatch() {
        watch.withLockedValue { $0.stopRequested = true }
    }
}
